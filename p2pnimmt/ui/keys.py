"""The key bindings of the full-screen table, from a factory over the screen's actions (ui.app.TableApp)."""

from __future__ import annotations

from prompt_toolkit.key_binding import KeyBindings

from ..i18n import pgettext


def yes_key() -> str:
    """The letter that answers yes to "Leave the game? (y / n)" in the language shown (German: j); y always does."""
    return pgettext("the key that answers yes to the question to leave the game", "y")


def make_bindings(ui) -> KeyBindings:
    """Keys for `ui`; help and the quit question take any key first, so nothing is played by accident."""
    kb = KeyBindings()

    def guarded(action):
        def handler(event) -> None:
            if ui.help:
                ui.help = False
            elif ui.confirm_quit:
                ui.confirm_quit = False
            else:
                action()
        return handler

    kb.add("left")(guarded(lambda: ui.move(-1)))
    kb.add("right")(guarded(lambda: ui.move(1)))
    kb.add("up")(guarded(lambda: ui.move(-1)))
    kb.add("down")(guarded(lambda: ui.move(1)))
    kb.add("enter")(guarded(ui.enter))
    kb.add("space")(guarded(ui.enter))
    kb.add("backspace")(guarded(ui.backspace))
    kb.add("escape", eager=True)(guarded(lambda: None))
    kb.add("a")(guarded(ui.ask_stand_in))
    kb.add("m")(guarded(ui.toggle_mute))
    kb.add("r")(guarded(lambda: ui.play_again() if getattr(ui, "again", None) is not None else None))
    for d in "0123456789":
        kb.add(d)(guarded(lambda d=d: ui.digit(d)))

    @kb.add("?")
    def _help(event) -> None:
        ui.help = not ui.help

    @kb.add("q")
    @kb.add("c-c")
    @kb.add("c-q")
    def _quit(event) -> None:
        ui.help = False
        ui.ask_quit()

    @kb.add("y")
    def _yes(event) -> None:
        if ui.confirm_quit:
            ui.confirm_quit = False
            ui.leave()
        elif ui.help:
            ui.help = False

    @kb.add("n")
    def _no(event) -> None:
        ui.confirm_quit = False
        ui.help = False

    @kb.add("<any>")
    def _other(event) -> None:
        if ui.confirm_quit and event.data == yes_key():  # German's j (no binding of its own: other languages)
            return _yes(event)
        ui.help = False
        ui.confirm_quit = False

    return kb
