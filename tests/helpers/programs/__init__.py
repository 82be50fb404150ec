"""Programs the tests run as agents: the scripted agent and a hostile one."""
