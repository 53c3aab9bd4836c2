// Before deployment in the dealt variants: 乱战's colour pick (who picks in which order, the
// colours left) and redeal question, 三打一's bidding (every seat's bid), each with the
// player's hand drawn as soon as the server has dealt it.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { act } from "./actions.js";
import { ARMY_COLOURS, NEUTRAL } from "./board.js";
import { colourName, rankLabel, RANK_ORDER, t } from "./i18n.js";
import { playerName } from "./seats.js";

const nameOf = (snap, seat) => playerName(snap.seats[seat], seat) ?? t("seat", { n: seat });

// A hand as a tray of pieces, grouped by rank and colour, biggest first.
export function handTray(hand) {
  if (!hand) return nothing;
  const groups = new Map();
  for (const p of hand) {
    const key = `${p.rank}/${p.army}`;
    groups.set(key, { ...p, count: (groups.get(key)?.count ?? 0) + 1 });
  }
  const sorted = [...groups.values()].sort((a, b) => RANK_ORDER.indexOf(a.rank) - RANK_ORDER.indexOf(b.rank) || a.army - b.army);
  return html`<div class="hand" data-hand=${hand.length}>
    <h4>${t("hand")} (${hand.length})</h4>
    <ul>${sorted.map((p) => html`<li class="chip" data-rank=${p.rank} .style=${`background:${ARMY_COLOURS[p.army] ?? NEUTRAL}`}>
      ${rankLabel(p.rank)}${p.count > 1 ? html`<small>×${p.count}</small>` : nothing}</li>`)}</ul>
  </div>`;
}

// The colours to pick: one for each seat (``deal.picks`` holds a pick for each).
function picking(snap) {
  const g = snap.game, deal = g.deal, me = snap.you;
  const order = [...deal.order, g.host];
  const mine = me !== null && deal.waiting.includes(me);
  const picker = deal.waiting[0];
  return html`<div class="pregame card" id="pick">
    <h3>${t("pickTitle")}</h3>
    <p class="sub">${t("pickBlind")}</p>
    <ol class="order" aria-label=${t("pickOrder")}>${order.map((seat, i) => {
      const pick = deal.picks[seat];
      const now = deal.waiting.includes(seat);
      return html`<li class=${now ? "now" : ""} data-seat=${seat}>
        <span class="dot" .style=${`background:${pick === null ? NEUTRAL : ARMY_COLOURS[pick]}`}></span>
        ${nameOf(snap, seat)}${seat === me ? html` <b>(${t("you")})</b>` : nothing}
        <small>${pick !== null ? colourName(pick) : i === order.length - 1 ? "" : now ? t("thinking") : "…"}</small></li>`;
    })}</ol>
    <p class="sub">${t("pickLast", { name: nameOf(snap, g.host) })}</p>
    <div class="colours">${deal.picks.map((_, c) => html`
      <button class="pick" data-colour=${c} ?disabled=${!mine || deal.picks.includes(c)}
        .style=${`--army:${ARMY_COLOURS[c]}`} @click=${() => act({ type: "pick_colour", colour: c }, () => false)}>
        <span class="chip" .style=${`background:${ARMY_COLOURS[c]}`}>${rankLabel("engineer")}</span>${colourName(c)}</button>`)}</div>
    <p class=${mine ? "your-turn" : "sub"}>${mine ? t("pickYours") : t("pickWait", { name: nameOf(snap, picker) })}</p>
  </div>`;
}

function redealing(snap) {
  const g = snap.game, deal = g.deal, me = snap.you;
  const mine = me !== null && deal.waiting.includes(me);
  return html`<div class="pregame card" id="redeal">
    <h3>${t("redealTitle")}</h3>
    ${handTray(deal.hand)}
    ${mine ? html`
      <p>${deal.may_ask_redeal ? t("redealMay") : t("redealMayNot")}</p>
      <div class="buttons">
        ${deal.may_ask_redeal ? html`<button class="redeal" data-v="1" @click=${() => act({ type: "answer_redeal", redeal: true }, () => false)}>${t("redeal")}</button>` : nothing}
        <button class="redeal primary" data-v="0" @click=${() => act({ type: "answer_redeal", redeal: false }, () => false)}>${t("keep")}</button>
      </div>` : html`<p class="sub">${t("redealWait")}</p>`}
    <ul class="answers">${snap.seats.map((s) => html`<li data-seat=${s.seat}>${nameOf(snap, s.seat)}:
      ${deal.waiting.includes(s.seat) ? t("thinking") : `✓ ${t("answered")}`}</li>`)}</ul>
  </div>`;
}

function bidding(snap) {
  const g = snap.game, deal = g.deal, me = snap.you;
  const mine = me !== null && deal.waiting.includes(me);
  const top = Math.max(0, ...deal.bids.filter((b) => b !== null));
  const bidder = deal.waiting[0];
  return html`<div class="pregame card" id="bid">
    <h3>${t("bidTitle")}</h3>
    ${handTray(deal.hand)}
    <ol class="order" aria-label=${t("bidOrder")}>${deal.order.map((seat) => {
      const bid = deal.bids[seat];
      return html`<li class=${deal.waiting.includes(seat) ? "now" : ""} data-seat=${seat} data-bid=${bid ?? ""}>
        ${nameOf(snap, seat)}${seat === me ? html` <b>(${t("you")})</b>` : nothing}
        <small>${bid === null ? (deal.waiting.includes(seat) ? t("thinking") : t("noBid")) : bid === 0 ? t("pass") : t(`bid${bid}`)}</small></li>`;
    })}</ol>
    ${mine ? html`<p class="your-turn">${t("bidYours")}</p><div class="buttons">
      <button class="bid" data-level="0" @click=${() => act({ type: "bid", level: 0 }, () => false)}>${t("pass")}</button>
      ${snap.capabilities.contracts.filter((l) => l > top).map((l) => html`<button class="bid primary" data-level=${l}
        @click=${() => act({ type: "bid", level: l }, () => false)}>${t(`bid${l}`)}</button>`)}
    </div>` : html`<p class="sub">${t("bidWait", { name: nameOf(snap, bidder) })}</p>`}
  </div>`;
}

// The card over the board before deployment, if the phase has one.
export function pregameCard(snap) {
  const phase = snap.game?.phase;
  if (phase === "picking") return picking(snap);
  if (phase === "redealing") return redealing(snap);
  if (phase === "bidding") return bidding(snap);
  return nothing;
}
