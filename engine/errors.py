"""Typed engine errors: malformed input, illegal actions, acting out of turn."""

from typing import Any


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class MalformedInput(EngineError, ValueError):
    """The input cannot be understood: unknown variant, station, rank, bad notation."""


class IllegalAction(EngineError):
    """The input is understood but the rules forbid it."""


class NotYourTurn(IllegalAction):
    """A seat tried to act when it is not its turn."""


class GamePaused(IllegalAction):
    """An action other than resuming or escaping while play is paused (三打一, docs/rules.md
    §9.3)."""


class IllegalLayout(IllegalAction):
    """A confirmed layout breaks the deployment rules; ``problems`` lists them all."""

    def __init__(self, message: str, problems: list[Any]) -> None:
        super().__init__(message)
        self.problems = problems
