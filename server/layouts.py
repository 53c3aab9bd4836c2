"""Saved layouts (保存布局 / 调入布局): per-user CRUD, in the engine's text notation."""

from __future__ import annotations

import base64
import json
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Path, Query, Response
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

import engine
from server.accounts import NO_NUL, NOT_FOUND, REFUSALS, CurrentUser, Session, refusal
from server.models import Game, GameSeat, SavedLayout

router = APIRouter(prefix="/api/layouts", tags=["layouts"], responses=REFUSALS | NOT_FOUND)
LayoutId = Annotated[int, Path(ge=1, le=2**31 - 1)]  # the column is a 32-bit integer


class LayoutIn(BaseModel):
    name: str = Field(min_length=1, max_length=64, pattern=NO_NUL, examples=["稳守左旗"])
    variant: str = Field(examples=["siguo"])
    text: str = Field(
        max_length=2000, pattern=NO_NUL, description="the layout file (engine text notation)"
    )


class LayoutOut(LayoutIn):
    id: int
    problems: list[str] = Field(description="deployment problems for seat 0 ([] when legal)")


def _check(body: LayoutIn) -> list[str]:
    if body.variant not in engine.VARIANTS:
        raise HTTPException(422, f"unknown variant {body.variant!r}")
    try:
        layout = engine.parse_layout(body.text, 0)
    except engine.MalformedInput as error:
        raise HTTPException(422, str(error)) from None
    if engine.get_variant(body.variant).dealing is not None:
        return []  # dealt hands differ from game to game: checked when deployed
    return engine.deployment_problems(body.variant, 0, layout)


def _out(row: SavedLayout) -> LayoutOut:
    body = LayoutIn(name=row.name, variant=row.variant, text=row.text)
    return LayoutOut(id=row.id, problems=_check(body), **body.model_dump())


class DeployIn(BaseModel):
    variant: str
    seat: int
    layout: dict[str, str] = Field(default_factory=dict)
    hand: list[tuple[str, int | None]] | None = None  # a dealt hand: (rank, army colour)
    banker: bool = False
    seed: int = 0


class ProblemOut(BaseModel):
    code: str
    stations: list[str]
    detail: str


def _hand(body: DeployIn) -> list[tuple[engine.Rank, int | None]] | None:
    """The dealt hand of a request about a layout, once the request is known to name a variant
    and one of its seats, and to hold no more pieces than the board has stations (checked
    before any other work: a layout of two million keys never reaches the engine)."""
    if body.variant not in engine.VARIANTS:
        raise HTTPException(422, f"unknown variant {body.variant!r}")
    variant = engine.get_variant(body.variant)
    if body.seat not in variant.seats:
        raise HTTPException(422, f"no seat {body.seat}")
    stations = len(variant.board.stations)
    for what, pieces in (("layout", len(body.layout)), ("hand", len(body.hand or ()))):
        if pieces > stations:
            board = f"the {body.variant} board has {stations} stations"
            raise refusal(422, "layout_too_large", f"a {what} of {pieces} pieces: {board}")
    if body.hand is None:
        return None
    try:
        return [(engine.Rank(rank), army) for rank, army in body.hand]
    except ValueError as error:
        raise HTTPException(422, str(error)) from None


@router.post("/check", response_model=list[ProblemOut])
async def check_layout(body: DeployIn) -> list[ProblemOut]:
    """Every problem of a layout being edited, with the stations to highlight."""
    problems = engine.layout_problems(
        body.variant, body.seat, body.layout, hand=_hand(body), banker=body.banker
    )
    return [
        ProblemOut(code=p.code.value, stations=list(p.stations), detail=p.detail) for p in problems
    ]


@router.post("/auto", response_model=dict[str, str])
async def auto(body: DeployIn) -> dict[str, str]:
    """An automatic layout (自动布局) that keeps the legal part of ``layout``."""
    layout = _auto_layout(body, partial=body.layout or None)
    return {sid: str(key) for sid, key in layout.items()}


def _auto_layout(body: DeployIn, partial: dict[str, str] | None = None) -> dict[str, str]:
    """自动布局 for the request's seat and hand; a hand that no layout can hold (only a made-up
    one: every dealt hand fits) is refused with 422 ``layout_impossible``."""
    hand = _hand(body)
    try:
        return engine.auto_layout(
            body.variant, body.seat, body.seed, partial=partial, hand=hand, banker=body.banker
        )
    except engine.MalformedInput as error:
        raise refusal(422, "layout_impossible", str(error)) from None


class StartOut(BaseModel):
    layout: dict[str, str]
    source: Literal["last", "auto"] = Field(
        description="last: the layout of the player's last game of the variant; auto: 自动布局"
    )


@router.post("/start", response_model=StartOut)
async def starting_layout(body: DeployIn, user: CurrentUser, session: Session) -> StartOut:
    """The layout a player's deployment starts from, never an empty arm: the one they played
    their last game of the variant with, turned to this seat, or else an automatic one (always
    for dealt hands, which differ from game to game)."""
    _hand(body)  # the request is checked first
    if engine.get_variant(body.variant).dealing is None:
        last = await _last_layout(session, user.id, body.variant, body.seat)
        if last is not None:
            return StartOut(layout=last, source="last")
    layout = _auto_layout(body)
    return StartOut(layout={sid: str(key) for sid, key in layout.items()}, source="auto")


async def _last_layout(
    session: Session, user_id: int, variant: str, seat: int
) -> dict[str, str] | None:
    """The layout of the user's latest finished game of ``variant`` that got as far as play,
    for ``seat`` (a layout file is the same for every seat)."""
    rows = await session.execute(
        select(Game.record, GameSeat.seat)
        .join(GameSeat, GameSeat.game_id == Game.id)
        .where(GameSeat.user_id == user_id, Game.variant == variant, Game.record.is_not(None))
        .order_by(Game.finished_at.desc())
        .limit(5)
    )
    for record, played in rows.all():
        layouts = json.loads(record or "{}").get("layouts", [])
        if played < len(layouts) and layouts[played]:
            layout = engine.parse_layout(engine.format_layout(layouts[played]), seat)
            keys = {sid: rank.value for sid, rank in layout.items()}
            if not engine.deployment_problems(variant, seat, keys):
                return keys
    return None


class ParsedOut(BaseModel):
    layout: dict[str, str] | None
    error: str | None = Field(description="why the file cannot be read, if it cannot")


@router.post("/parse", response_model=ParsedOut)
async def parse(body: LayoutIn, seat: int = 0) -> ParsedOut:
    """A layout file's text read as a layout for ``seat`` (import); a file that cannot be read
    is an answer too, with the line at fault."""
    try:
        layout = engine.parse_layout(body.text, seat)
    except engine.MalformedInput as error:
        return ParsedOut(layout=None, error=str(error))
    return ParsedOut(layout={sid: r.value for sid, r in layout.items()}, error=None)


def _arm(body: DeployIn) -> dict[str, str]:
    """The seat's own arm of a layout being edited (what a layout file holds)."""
    _hand(body)  # a known variant and one of its seats
    return {sid: key for sid, key in body.layout.items() if sid.startswith(f"{body.seat}:")}


@router.post("/format", response_class=PlainTextResponse)
async def format_file(body: DeployIn) -> PlainTextResponse:
    """A layout as its text file (export)."""
    try:
        return PlainTextResponse(engine.format_layout(_arm(body)))
    except engine.MalformedInput as error:
        raise HTTPException(422, str(error)) from None


@router.post(
    "/jql",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}, "description": "the file"}},
)
async def jql_file(body: DeployIn) -> Response:
    """A layout as a QQ游戏 layout file (``.jql``, 50 bytes; ``engine.jql``)."""
    try:
        data = engine.format_jql(_arm(body))
    except engine.MalformedInput as error:
        raise HTTPException(422, str(error)) from None
    return Response(
        data,
        media_type="application/octet-stream",
        headers={"Content-Disposition": 'attachment; filename="layout.jql"'},
    )


class JqlIn(BaseModel):
    data: str = Field(max_length=400, description="the .jql file's bytes, base64")


@router.post("/parse-jql", response_model=ParsedOut)
async def parse_jql(body: JqlIn, seat: Annotated[int, Query(ge=0, le=3)] = 0) -> ParsedOut:
    """A QQ游戏 layout file (``.jql``) read as a layout for ``seat`` (import); a file that is
    not one is an answer too, saying so."""
    try:
        data = base64.b64decode(body.data, validate=True)
    except ValueError:  # not base64 (binascii.Error), or not even ASCII
        return ParsedOut(layout=None, error="not a QQ layout file: the data is not base64")
    try:
        layout = engine.parse_jql(data, seat)
    except engine.MalformedInput as error:
        return ParsedOut(layout=None, error=str(error))
    return ParsedOut(layout={sid: r.value for sid, r in layout.items()}, error=None)


@router.get("", response_model=list[LayoutOut])
async def list_layouts(user: CurrentUser, session: Session) -> list[LayoutOut]:
    rows = await session.execute(
        select(SavedLayout).where(SavedLayout.user_id == user.id).order_by(SavedLayout.name)
    )
    return [_out(row) for row in rows.scalars()]


@router.post("", response_model=LayoutOut, status_code=201)
async def save_layout(body: LayoutIn, user: CurrentUser, session: Session) -> LayoutOut:
    """Save (or import) a layout file; illegal layouts are kept, with their problems listed."""
    _check(body)
    row = SavedLayout(user_id=user.id, name=body.name, variant=body.variant, text=body.text)
    session.add(row)
    await _commit(session, body)
    return _out(row)


async def _commit(session: Session, body: LayoutIn) -> None:
    """Commit a saved or renamed layout; 409 when the user has one of that name already."""
    try:
        await session.commit()
    except IntegrityError:
        raise HTTPException(
            409, f"you already have a {body.variant} layout {body.name!r}"
        ) from None


async def _own(session: Session, user_id: int, layout_id: int) -> SavedLayout:
    row = await session.get(SavedLayout, layout_id)
    if row is None or row.user_id != user_id:
        raise HTTPException(404, f"no layout {layout_id}")
    return row


@router.put("/{layout_id}", response_model=LayoutOut)
async def update_layout(
    layout_id: LayoutId, body: LayoutIn, user: CurrentUser, session: Session
) -> LayoutOut:
    _check(body)
    row = await _own(session, user.id, layout_id)
    row.name, row.variant, row.text = body.name, body.variant, body.text
    await _commit(session, body)
    return _out(row)


@router.delete("/{layout_id}", status_code=204)
async def delete_layout(layout_id: LayoutId, user: CurrentUser, session: Session) -> Response:
    await session.delete(await _own(session, user.id, layout_id))
    await session.commit()
    return Response(status_code=204)


@router.get("/{layout_id}/file", response_class=PlainTextResponse)
async def export_layout(
    layout_id: LayoutId, user: CurrentUser, session: Session
) -> PlainTextResponse:
    """The layout as a text file to download and edit by hand."""
    row = await _own(session, user.id, layout_id)
    return PlainTextResponse(
        row.text,
        headers={"Content-Disposition": f'attachment; filename="layout-{row.id}.txt"'},
    )
