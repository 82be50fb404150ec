"""Plain words every target says alike: narration, the daily limit, the host policy, a clone's
set-up, a workflow's history, a push's result and a hold's answer (this package stays standard
library only: the hook imports `hold_answers` in isolated mode)."""
