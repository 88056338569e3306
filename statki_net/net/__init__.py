"""The network shell (asyncio): listening, admission of guests, the connection driver and
its notices, the daemon and its control socket, invites.

May import the pure layers and ``store``, never ``cli`` or the client.
"""
