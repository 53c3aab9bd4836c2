// Why a game ended and why a seat went out, in words from the viewer's side: the result's
// reason (engine/outcome.py: EndReason) made exact by the seats' eliminations (EliminationReason,
// the victor, the order) and their skip counters, which tell timeouts from turns skipped for
// want of a legal move. Nothing here decides a rule: every count and limit is the server's.

import { eliminationText, t } from "./i18n.js";

// A seat's skipped turns, told apart: ``timeouts`` (the clock ran out) and ``blocked`` (no legal
// move); from the game view's ``skips`` and ``timeouts`` (or a tally of the log's lines).
export function skipsOf(info) {
  const skips = info?.skips ?? 0, timeouts = info?.timeouts ?? 0;
  return { skips, timeouts, blocked: Math.max(0, skips - timeouts) };
}

// The counter on a seat's panel: timeouts against the table's skip limit (``max``, the
// snapshot's rules), and turns skipped for want of a move named as such, never as timeouts.
export function skipsLine(info, max) {
  const { skips, timeouts, blocked } = skipsOf(info);
  if (!blocked) return t("skipsUsed", { n: timeouts, max });
  if (!timeouts) return t("blockedUsed", { n: skips, max });
  return t("mixedUsed", { n: skips, max, t: timeouts, b: blocked });
}

// Why a seat is out, in a few words (a panel, a row of the result card, a line of the log);
// ``info``: its skip counts, for an elimination by skips.
export function outWhy(reason, info) {
  if (reason !== "skips") return eliminationText(reason);
  const { skips, timeouts, blocked } = skipsOf(info);
  if (!blocked) return t("outTimeouts", { n: skips });
  if (!timeouts) return t("outBlockedSkips", { n: skips });
  return t("outMixedSkips", { n: skips, t: timeouts, b: blocked });
}

// How the viewer calls a seat: "you", "your partner X", "X", or, for a spectator, "Red X".
function subject(seat, view) {
  const name = view.name(seat);
  if (view.you === null || view.you === undefined) return { key: "Side", name, side: view.arm(seat) };
  if (seat === view.you) return { key: "You", name };
  if (view.team(seat) === view.team(view.you)) return { key: "Partner", name };
  return { key: "Other", name };
}

const who = (s, form) => t(`${form}${s.key}`, { name: s.name, side: s.side });

// The elimination that ended the game: the last one of a seat that did not win.
function decisive(result, reason) {
  const out = result.seats.filter((s) => s.elimination && !result.winners.includes(s.seat)
    && (reason === undefined || s.elimination.reason === reason));
  return out.sort((a, b) => b.elimination.order - a.elimination.order)[0] ?? null;
}

// The result's reason in words for this viewer: a heading (扛旗, 全歼, 投降, 协议和棋, …) and
// what happened, from the viewer's side. ``view``: { you (the viewer's seat or null), name(seat),
// arm(seat), team(seat), skips(seat) (its skip counts), rules (the table's, if known) }.
export function endingText(result, view) {
  if (!result) return "";
  const reason = result.reason;
  if (reason === "agreement" || reason === "dissolved") return `${t(`end_${reason}`)} · ${t(`endWhy_${reason}`)}`;
  if (reason === "move_limit" || reason === "no_capture") {
    const n = view.rules?.[reason === "move_limit" ? "max_total_moves" : "no_capture_plies"];
    return `${t(`end_${reason}`)} · ${t(n ? `endWhy_${reason}` : `endWhy_${reason}_`, { n })}`;
  }
  const last = reason === "escape" ? decisive(result, "escape") : decisive(result);
  if (!last) return t(`end_${reason}`);
  const seat = last.seat, why = last.elimination.reason, victor = last.elimination.victor;
  const counts = skipsOf(view.skips(seat));
  // what the heading calls it and the words that tell it: skips by timeouts alone are 超时,
  // by want of a legal move alone 无子可走; an escape by timeouts says so
  let kind = why;
  if (why === "skips") kind = counts.timeouts === counts.skips ? "skips" : counts.timeouts ? "skipsMixed" : "blockedSkips";
  if (why === "escape" && counts.timeouts > 0 && counts.timeouts === counts.skips) kind = "escapeTimeouts";
  const s = subject(seat, view);
  const ours = view.you !== null && view.you !== undefined && victor !== null && victor !== undefined
    && view.team(victor) === view.team(view.you) && seat !== view.you;
  const text = ours && (why === "flag_captured" || why === "no_live_pieces") // the viewer's side did it
    ? t(`won_${why}`, { victor: who(subject(victor, view), "nom"), name: s.name })
    : t(`why_${kind}`, { who: who(s, "nom"), whose: who(s, "pos"), n: counts.skips, t: counts.timeouts, b: counts.blocked });
  return `${t(`head_${kind}`)} · ${text}`;
}
