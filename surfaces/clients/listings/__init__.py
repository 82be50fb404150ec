"""What surfaces read with the workflow service alone (no SDK client, data converter or
pydantic), so a listing stays light: pages of jobs and approvals, what jobs cost, and whether a
worker polls a task queue."""
