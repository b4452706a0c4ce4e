"""The browser front: an aiohttp server on this node that pushes a TableModel to a page and takes intents back.

Like ui/, it reads a model and sends intents through a Seat; it never touches the game's network (net/).
"""
