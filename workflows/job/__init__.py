"""The `CodingJob` workflow and the parts of a job: holds, modes, slot, report."""
