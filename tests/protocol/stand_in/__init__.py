"""Discord at the protocol level: REST (rest.py, limits.py) and the gateway (gateway.py) on
127.0.0.1 (server.py), and the real bot process pointed at them (launch.py, bot.py)."""
