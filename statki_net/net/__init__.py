"""The network shell (asyncio): listening, the connection driver, the daemon, the
control socket, invites.

May import the pure layers and ``store``, never ``cli`` or the client.
"""
