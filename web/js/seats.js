// Who is who at a table: each seat's colour, team mark, name, title, presence, state and clock,
// as the panels at the arms show them (board.js draws them). All of it is read from the
// snapshot the server sent: the variant's capabilities say how colours and teams are known
// (docs/protocol.md, "Capabilities"), its rules the limits; nothing here decides a rule.

import { ARMY_COLOURS, NEUTRAL } from "./board.js";
import { bubbleAt } from "./chat.js";
import { outWhy, skipsLine } from "./ending.js";
import { colourName, t, titleName } from "./i18n.js";

// A seated player's name as the page shows it: a bot's in the reader's language ("机器人1",
// "Bot 1": the same at the table, in the lobby and in replays), a person's as they chose it.
export const playerName = (s, seat) => (s?.bot ? t("botName", { n: seat + 1 }) : s?.name ?? null);

// The army a seat plays (``caps``: its variant's capabilities): its own, the one it picked or
// the one play gave it; null before that is known. Before a game, its own.
export function seatArmy(game, caps, seat) {
  if (!game) return seat;
  if (caps?.colour === "picked") return game.deal?.picks?.[seat] ?? null;
  if (caps?.colour === "first_engineer") return game.colours ? game.colours[seat] : null;
  return seat;
}

export function seatColour(game, caps, seat) {
  return ARMY_COLOURS[seatArmy(game, caps, seat)] ?? NEUTRAL;
}

// A seat's arm in a few words: its colour (红, 黄, ...), or while it has none (翻棋 before the
// first engineer is flipped) the seat's place in the turn order from the view's ``first``
// (先手, 后手), which every viewer sees alike.
export function armName(game, caps, seat) {
  const army = seatArmy(game, caps, seat);
  if (army !== null) return colourName(army);
  const n = game?.seats?.length || 1;
  return t(`order${(seat - (game?.first ?? 0) + n) % n}`);
}

// Whether the game's teams are known now: fixed partners, or the sides once the bid is won.
function teamsKnown(g, caps) {
  if (caps?.teams === "fixed") return true;
  return caps?.teams === "banker" && g.deal?.banker !== null && g.deal?.banker !== undefined;
}

// Which seat must act now, and until when: the seat to move, the pickers and bidders, every
// seat still deploying, a seat raising its flag.
export function clockFor(snap, seat, now, offline = false) {
  const g = snap.game;
  if (!g || g.phase === "finished" || g.deadline === null) return null;
  const rules = snap.rules;
  let until = null, total = rules.move_seconds;
  const info = g.seats?.[seat];
  if (info?.raise_flag_by) until = info.raise_flag_by;
  else if (g.phase === "playing" && g.to_move === seat) until = g.deadline;
  else if (["picking", "redealing", "bidding"].includes(g.phase) && g.deal?.waiting?.includes(seat)) until = g.deadline;
  else if (g.phase === "deploying" && !info?.confirmed) { until = g.deadline; total = rules.deploy_seconds; }
  if (until === null) return null;
  const left = Math.max(0, Math.ceil(until - now));
  if (offline) return { left: Infinity, fraction: 1, label: t("clockLost"), lost: true }; // not counting on blind
  return { left, fraction: (until - now) / total, label: t("toMoveClock", { s: left }) };
}

// A seat's team mark: its side (甲, 乙) where partners are fixed, 庄 or 闲 once the bid is won.
function teamBadge(g, caps, seat) {
  if (!teamsKnown(g, caps)) return null;
  if (caps.teams === "banker") return t(g.deal.banker === seat ? "bankerMark" : "idleMark");
  return t(`teamMark${g.seats[seat].team}`);
}

// What a seat's panel says about the game so far (one short phrase, or none); ``maxSkips``: the
// table's skip limit, which timeouts reach at the cost of an escape.
function gameStatus(g, seat, maxSkips) {
  const info = g.seats[seat];
  if (info.eliminated) return { text: `${t("out")} · ${outWhy(info.eliminated.reason, info)}`, kind: "bad" };
  if (g.phase === "deploying") return info.confirmed ? { text: t("deployed"), kind: "good" } : { text: t("deploying_") };
  if (g.phase === "picking") {
    const pick = g.deal.picks[seat];
    if (pick !== null) return { text: `${t("picked")} ${colourName(pick)}`, kind: "good" };
    return g.deal.waiting.includes(seat) ? { text: t("thinking") } : null;
  }
  if (g.phase === "redealing") return g.deal.waiting.includes(seat) ? { text: t("thinking") } : { text: t("answered"), kind: "good" };
  if (g.phase === "bidding") {
    const bid = g.deal.bids[seat];
    if (bid === null) return g.deal.waiting.includes(seat) ? { text: t("thinking") } : null;
    return { text: bid === 0 ? t("pass") : t(`bid${bid}`), kind: "good" };
  }
  if (g.phase === "playing" || g.phase === "finished") {
    return { text: skipsLine(info, maxSkips), kind: info.skips ? "warn" : "" };
  }
  return null;
}

// Whether a seated player is here: online, 托管, or away with the grace left.
function presence(s, now) {
  if (s.taken_over) return { text: t("stoodIn"), kind: "warn" };
  if (s.away) return { text: t("away", { s: Math.max(0, Math.ceil((s.away_until ?? now) - now)) }), kind: "bad" };
  return { text: t("online"), kind: "good" };
}

// The model of every seat's panel, for a viewer whose own seat is ``you`` (null: a spectator).
export function seatPanels(snap, now, { mayAddBot, mayRemoveBot, maySit, maySwap, level, offline }) {
  const g = snap.game, caps = snap.capabilities;
  const playing = g && g.phase !== "finished";
  const you = snap.you;
  const yourTeam = you !== null && g ? g.seats[you]?.team : null;
  return snap.seats.map((s) => {
    const seat = s.seat;
    const colour = seatColour(g, caps, seat);
    const base = { seat, colour, army: seatArmy(g, caps, seat), you: seat === you, youLabel: t("you"), toMove: false, status: [] };
    if (!s.name) {
      const buttons = [];
      if (!playing && maySit) buttons.push({ label: t("sit"), action: "sit" });
      if (!playing && mayAddBot) buttons.push({ label: t("addBot"), action: "add_bot" });
      return { ...base, empty: true, name: t("empty"), title: "", buttons };
    }
    const status = [];
    if (!s.bot) status.push(presence(s, now)); // a bot is always there; its level is its title
    if (g && teamsKnown(g, caps) && yourTeam !== null && seat !== you && g.seats[seat]?.team === yourTeam) {
      status.push({ text: t("partner"), kind: "good" });
    }
    if (g && caps?.colour === "first_engineer") { // the colour each plays, once play gave it
      const army = seatArmy(g, caps, seat);
      status.push({ text: army === null ? t("colourless") : colourName(army) });
    }
    if (playing || g?.phase === "finished") {
      const st = gameStatus(g, seat, snap.rules.max_skips);
      if (st) status.push(st);
    } else {
      status.push(s.ready ? { text: `✓ ${t("isReady")}`, kind: "good" } : { text: t("notReady") });
    }
    const clock = playing ? clockFor(snap, seat, now, offline) : null;
    const buttons = [];
    if (s.bot && !playing && mayRemoveBot) buttons.push({ label: t("removeBot"), action: "remove_bot" });
    if (!s.bot && seat !== you && !playing && maySwap) { // asked by them: accept; else ask
      buttons.push({ label: t(s.swap_with === you ? "swapAsk" : "swapSeat"), action: "swap" });
    }
    return {
      ...base,
      name: playerName(s, seat), // a bot's name says it is one; its title, its level
      avatar: playerName(s, seat), // drawn from the name as shown (avatar.js); the 军衔 badge from the title
      rank: s.bot ? null : { title: s.title, level: s.title_level },
      points: s.points ?? 0,
      title: s.bot ? t("botTitle", { level: t(s.level ?? level ?? "normal") }) : `${titleName(s.title)} · ${s.points ?? 0}`,
      badge: g ? teamBadge(g, caps, seat) : null,
      status,
      clock,
      toMove: clock !== null,
      eliminated: Boolean(g?.seats?.[seat]?.eliminated),
      buttons,
      bubble: bubbleAt(snap.id, seat), // a quick phrase the seat said a moment ago
    };
  });
}
