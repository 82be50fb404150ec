"""The low records the payloads, holds and policies are made of: the base of every payload and
its scrubbed text, a job's phase and outcome, a repository's set-up, a job's narration. They
import none of desk's folders; `desk.payloads` sits above holds and policy and builds on them."""
