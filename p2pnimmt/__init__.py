"""p2pnimmt: 6 nimmt! over a local network with no server."""

__version__ = "0.1.0"
