"""Moving bytes: asyncio TCP mesh, framing, handshake, zeroconf discovery, timers and files.

The protocol and the engine stay pure; this layer feeds them bytes and carries out what they return.
"""
