"""User interfaces: they read engine and session state and send intents; they never change game state themselves."""
