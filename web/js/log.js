// The game's history in words, and the result card at the end of a game.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { endingText, outWhy, skipsOf } from "./ending.js";
import { colourName, outcomeText, rankName, repeatText, t, titleName, unratedText } from "./i18n.js";
import { armName, playerName } from "./seats.js";
import { changed } from "./store.js";

// a seat's player: as seated now, or as the game knew them (players who left stay named)
export const nameOf = (snap, seat, names = []) => (seat === null || seat === undefined
  ? "?" : playerName(snap.seats[seat], seat) ?? names[seat] ?? t("seat", { n: seat + 1 }));

// How the log names seats and stations: ``who.name(seat)``, ``who.colour(seat)``, and a
// station as its arm (``who.arm(seat)``: 红, 黄, ...; 中 for the centre) and its row and column.
function place(who, station) {
  const [arm, spot] = station.split(":");
  return `${arm === "c" ? t("centre") : who.arm(Number(arm))}${spot}`;
}

const rank = (r) => (r ? rankName(r) : t("hiddenPiece"));

// One event as a line of the log: { seat, text, origin, target }, or null for those that are
// not worth a line. Ranks only where this viewer was told them. ``tally``: each seat's skipped
// turns so far ({ skips, timeouts }, counted from the lines before), to tell timeouts apart from
// turns skipped for want of a legal move.
export function describe(e, who, tally = new Map()) {
  const counts = (seat) => tally.get(seat) ?? { skips: 0, timeouts: 0 };
  const line = (text, extra = {}) => ({ seq: e.seq, seat: e.seat ?? null, text, ...extra });
  switch (e.kind) {
    case "moved": {
      const fight = e.outcome
        ? ` ⚔ ${who.name(e.defender)} ${rank(e.defender_rank)}: ${outcomeText(e.outcome)}` : "";
      return line(`${rank(e.rank)} ${place(who, e.origin)} → ${place(who, e.target)}${fight}`,
        { origin: e.origin, target: e.target, fight: Boolean(e.outcome) });
    }
    case "flipped": return line(`${t("flipped")} ${rankName(e.rank)} (${colourName(e.army)}) ${place(who, e.station)}`,
      { origin: e.station, target: e.station });
    case "colours": return line(e.colours.map((c, s) => `${who.name(s)} ${colourName(c)}`).join(" · "));
    case "flag_picked_up": return line(`${t("flagCarry")} ${place(who, e.origin)} → ${place(who, e.target)}`,
      { origin: e.origin, target: e.target });
    case "colour_picked": return line(`${t("picked")} ${colourName(e.colour)}`);
    case "bid": return line(e.level === 0 ? t("pass") : t(`bid${e.level}`));
    case "banker": return line(`${t("banker")} · ${t(`bid${e.contract}`)}`);
    case "redealt": return line(`${t("redeal")} (${e.deal})`);
    case "deployed": return line(t("deployed"));
    case "auto_deployed": return line(t("autoLayout"));
    case "game_started": return line(t("gameStarted"));
    case "flag_revealed": return line(`${t("shownFlag")} ${place(who, e.station)}`, { origin: e.station, target: e.station });
    case "flag_raised": return line(`${t("raised")} ${place(who, e.station)}`, { origin: e.station, target: e.station });
    case "skipped": {
      const before = counts(e.seat), timeout = e.reason === "timeout";
      const now = { skips: e.skips ?? before.skips + 1, timeouts: before.timeouts + (timeout ? 1 : 0) };
      tally.set(e.seat, now);
      const { timeouts, blocked } = skipsOf(now), max = who.rules?.max_skips;
      const text = timeout ? t("timedOutLine", { t: timeouts }) : t("blockedLine", { b: blocked });
      return line(max ? `${text} · ${t("skipsOfMax", { n: now.skips, max })}` : text);
    }
    case "eliminated": return line(`${t("out")} · ${outWhy(e.reason, counts(e.seat))}${e.victor !== null && e.victor !== undefined ? ` (${who.name(e.victor)})` : ""}`);
    case "proposal": return line(e.proposal === "draw" ? t("offersDraw") : t("asksSurrender"));
    case "proposal_accepted": return line(t("accept"));
    case "proposal_declined": return line(t("decline"));
    case "proposal_cancelled": return line(t("proposalLapsed"));
    case "surrendered": return line(t("surrender"));
    case "escaped": return line(t("escape"));
    case "commander_died": return line(`${rankName(e.rank)} ✝`);
    case "stand_in": return line(e.on ? t(e.why === "away" ? "standInAway" : "standInStarts") : t("standInEnds"));
    case "paused": return line(t("paused"));
    case "resumed": return line(t("resumed"));
    case "kicked": return line(`${t("kicked")}: ${e.reason}`);
    case "dissolved": return line(`${t("dissolvedBy")}: ${e.reason}`);
    case "game_over": return line(`${t("gameOver")}: ${endingText(e.result, { ...who, skips: counts })}`);
    case "points": return line([scoredText(e), repeatText(e)].filter(Boolean).join(" · "));
    default: return null;
  }
}

// The log as a list of its ``most`` latest lines, each with its ply (``data-ply``: the number of
// the game's recorded actions it came of, the step a replay shows it at; an event's ``ply``, or
// the last one before it); ``on.hover(line or null)`` and ``on.pick(line)`` let the board show a
// line's squares and a replay jump to it; ``current`` is the ply to mark. ``follow`` ({ up }):
// the log keeps its newest line in view (``followLog``) unless the reader scrolled up, when a
// "latest" button brings it back.
export function logList(events, who, on = {}, current = null, most = 300, follow = null) {
  const tally = new Map();
  let ply = 0;
  const lines = [];
  for (const e of events) {
    if (e.kind === "game_created") { ply = 0; tally.clear(); }
    if (e.ply !== undefined) ply = e.ply;
    const l = describe(e, who, tally);
    if (l) lines.push({ ...l, ply });
  }
  const shown = lines.slice(-most);
  return html`<div class="log-box"><ol class="log" id="log" data-log @mouseleave=${() => on.hover?.(null)}
      @scroll=${follow ? (ev) => scrolled(ev.currentTarget, follow) : null}>${shown.map((l, i) => html`
    <li data-seq=${l.seq} data-ply=${l.ply} class=${`${l.fight ? "fight-line" : ""}${l.ply === current ? " current" : ""}`}
      .style=${`--seat:${l.seat === null ? "transparent" : who.colour(l.seat)}`}
      @mouseenter=${() => on.hover?.(l)} @click=${() => on.pick?.(l)}>
      <span class=${`ply${i && shown[i - 1].ply === l.ply ? " same" : ""}`}>${l.ply}</span>
      ${l.seat === null ? nothing : html`<span class="dot" aria-hidden="true"></span><b>${who.name(l.seat)}</b> `}${l.text}</li>`)}</ol>
    ${follow?.up ? html`<button class="log-latest" id="log-latest" type="button" title=${t("latestHelp")}
      @click=${() => { follow.up = false; changed(); }}>${t("latest")}</button>` : nothing}</div>`;
}

// The reader scrolled the log: up from its end, it stays where they are; back at the end, it
// follows again.
function scrolled(log, follow) {
  const up = log.scrollHeight - log.scrollTop - log.clientHeight > 12;
  if (up !== follow.up) { follow.up = up; changed(); }
}

// After each redraw: a following log shows its newest line; a replay's move list keeps its
// current line in view.
export function followLog(follow) {
  const log = document.querySelector("[data-log]");
  if (!log) return;
  const current = log.querySelector("li.current");
  if (current) {
    if (current.offsetTop < log.scrollTop || current.offsetTop + current.offsetHeight > log.scrollTop + log.clientHeight) {
      log.scrollTop = current.offsetTop - log.clientHeight / 2;
    }
  } else if (follow && !follow.up && log.scrollTop < log.scrollHeight - log.clientHeight) {
    log.scrollTop = log.scrollHeight;
  }
}

// How a game was scored: rated at its stake, or not and why (the points event, the snapshot's
// scoring).
function scoredText(scoring) {
  return scoring.rated ? t("rated", { stake: scoring.stake }) : t("unrated", { why: unratedText(scoring.unrated_because) });
}

// Why a seat is out, beside its outcome: an escape says so once, in the outcome, unless it came
// of timeouts to the limit (an escape too: docs/rules.md §11).
function outText(g, s) {
  const reason = s.elimination?.reason;
  if (!reason) return "";
  if (reason !== "escape") return outWhy(reason, g.seats?.[s.seat]);
  const seat = g.seats?.[s.seat];
  return seat && seat.timeouts > 0 && seat.timeouts === seat.skips ? t("escapeTimeouts") : "";
}

// What a link to something that is not there shows: why, in words, and the way back.
export function deadLink(text) {
  return html`<section class="dead-link" id="dead-link"><div class="card">
    <p>${text}</p>
    <div class="buttons"><button id="dead-lobby" class="primary" @click=${() => { location.hash = ""; }}>${t("toLobby")}</button></div>
  </div></section>`;
}

// How the result's reason names the seats for this viewer (ending.js).
export function endingView(snap, names) {
  const g = snap.game;
  return { you: snap.you, name: (seat) => nameOf(snap, seat, names), arm: (seat) => armName(g, snap.capabilities, seat),
    team: (seat) => g?.seats?.[seat]?.team ?? seat, skips: (seat) => g?.seats?.[seat], rules: snap.rules };
}

// The end of a game: who won, why, what each seat scored, and ``fair``: the seed and its check.
export function resultCard(snap, names, { onClose, onReady, onReplay, onLobby, fair = nothing, rematch = nothing }) {
  const g = snap.game, result = g?.result;
  if (!result) return nothing;
  const me = snap.you;
  const mine = me !== null ? result.seats[me] : null;
  const drawn = result.winners.length === 0;
  const headline = mine
    ? mine.outcome === "win" ? t("youWon") : drawn && mine.outcome !== "escape" ? t("isDraw") : t("youLost")
    : drawn ? t("isDraw") : t("sideWon", { names: result.winners.map((s) => nameOf(snap, s, names)).join(" · ") });
  const points = snap.points ?? [];
  const scoring = snap.scoring;
  const rated = scoring ? scoredText(scoring) : "";
  const repeat = repeatText(scoring, result.seats.some((s) => s.outcome === "escape"));
  const stoodIn = (scoring?.stood_in ?? []).map((s) => nameOf(snap, s, names));
  return html`<div class="result card" id="result" data-outcome=${mine?.outcome ?? (drawn ? "draw" : "decided")}>
    <h2>${headline}</h2>
    <p class="reason">${endingText(result, endingView(snap, names))}</p>
    <p class="rated" id="rated">${rated}${stoodIn.length ? ` · ${t("stoodInBy", { names: stoodIn.join(" · ") })}` : ""}</p>
    ${repeat ? html`<p class="repeat-note" id="repeat-note">${repeat}</p>` : nothing}
    <table><tbody>${result.seats.map((s) => html`<tr class=${`outcome ${s.outcome}`} data-seat=${s.seat}>
      <td>${nameOf(snap, s.seat, names)}</td>
      <td>${t(s.outcome === "draw" ? "drawn" : s.outcome)}</td>
      <td>${outText(g, s)}</td>
      <td class="points">${(points[s.seat] ?? 0) > 0 ? "+" : ""}${points[s.seat] ?? 0}</td>
      <td class="title">${snap.seats[s.seat]?.name && !snap.seats[s.seat].bot ? titleName(snap.seats[s.seat].title) : ""}</td></tr>`)}</tbody></table>
    ${fair}
    ${rematch}
    <div class="buttons">
      ${onReady ? html`<button id="again" class="primary" @click=${onReady}>${t("playAgain")}</button>` : nothing}
      ${snap.game_id ? html`<button id="to-replay" @click=${onReplay}>${t("replay")}</button>` : nothing}
      <button id="see-board" @click=${onClose}>${t("seeBoard")}</button>
      <button id="result-lobby" @click=${onLobby}>${t("back")}</button>
    </div>
  </div>`;
}
