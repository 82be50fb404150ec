"""The structure every target renders from: blocks of typed spans, the characters that must be
made visible, and the layouts of approvals, reports and checks, in no target's markup."""
