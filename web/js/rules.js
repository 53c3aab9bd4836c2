// The rules of a room (#rules/<room>) or of one of its tables (#rules/<room>/<table>, and the
// 规则 button at the table): the server's facts (GET /api/rooms/<room>/rules: the rule options
// the tables play by, the board's counts, the pieces, every fight, the stakes and penalties)
// put in words. The client holds no rules: each sentence is chosen and filled by a fact.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { errorText, language, rankName, roomName, ruleText as r, t, variantName } from "./i18n.js";
import { changed, store } from "./store.js";

const loaded = new Map(); // "room/table" -> facts, or { error }
let page = null; // the rules page: { room, table }
let dialog = null; // the rules over a table: { room, table }

async function load(room, table) {
  const key = `${room}/${table ?? ""}`;
  if (loaded.has(key)) return;
  loaded.set(key, null);
  const query = table ? `?table=${encodeURIComponent(table)}` : "";
  try {
    loaded.set(key, await store.api.call("GET", `/api/rooms/${encodeURIComponent(room)}/rules${query}`));
  } catch (error) {
    loaded.set(key, { error: errorText(error) });
    setTimeout(() => loaded.delete(key), 5000); // asked again later, not forever refused
  }
  changed();
}

const factsOf = (where) => loaded.get(`${where.room}/${where.table ?? ""}`) ?? null;

export function openRules(room, table = null) {
  store.view = "rules";
  page = { room, table };
  load(room, table);
  changed();
}

// The rules of the open table's room over the table (the table stays open and watched).
export function showRules(room, table) {
  dialog = { room, table };
  load(room, table);
  changed();
}

export function rulesDialog() {
  if (!dialog || store.table?.id !== dialog.table) return nothing;
  const close = () => { dialog = null; changed(); };
  return html`<div class="modal-back rules-back" @click=${close}>
    <div class="card rules-dialog" role="dialog" aria-label=${r("rulesTitle")} @click=${(e) => e.stopPropagation()}>
      <div class="buttons rules-head"><span class="spacer"></span><button id="rules-close" @click=${close}>${t("close")}</button></div>
      ${rulesBody(factsOf(dialog))}
    </div></div>`;
}

export function rulesView() {
  const back = page?.table ? `#table/${page.table}` : "#";
  return html`<section class="rules-view" id="rules-page">
    <div class="card rules-card">
      <div class="buttons rules-head">
        <a class="button" href=${back} id="rules-back">${page?.table ? t("rejoin") : t("back")}</a>
        <span class="spacer"></span>
        <a class="button" href="#guide" id="open-guide">${r("guideOpen")}</a>
      </div>
      ${page ? rulesBody(factsOf(page)) : nothing}
    </div>
  </section>`;
}

// --- the words ------------------------------------------------------------------------------

const fact = (name, text) => html`<li data-fact=${name}>${text}</li>`;
const ranks = (keys) => keys.map(rankName).join(language() === "zh" ? "、" : ", ");
const onOff = (on, yes, no) => r(on ? yes : no);

function rulesBody(f) {
  if (!f) return html`<p>…</p>`;
  if (f.error) return html`<p class="warning" id="rules-error">${f.error}</p>`;
  const caps = f.variant.capabilities;
  return html`<article class="rules" data-room=${f.room.id} data-variant=${f.variant.key}>
    <h2>${r("rulesTitle")} · ${roomName(f.room)} <small>${variantName(f.variant.key)}</small></h2>
    ${f.table ? html`<p class="sub" id="rules-table">${Object.keys(f.table.changes).length
      ? r("tableChanges", { names: Object.keys(f.table.changes).map((k) => r(`opt_${k}`)).join(language() === "zh" ? "、" : ", ") })
      : r("tableSame")}</p>` : nothing}
    ${section("board", boardFacts(f, caps))}
    ${section("pieces", pieceFacts(f))}
    ${section("movement", movementFacts(f))}
    ${section("combat", combatFacts(f))}
    ${caps.flips ? nothing : section("deployment", deploymentFacts(f))}
    ${section("clocks", clockFacts(f))}
    ${section("draws", drawFacts(f))}
    ${section("information", informationFacts(f))}
    ${section("scoring", scoringFacts(f))}
    ${section("penalties", penaltyFacts(f))}
    ${section("own", ownFacts(f, caps))}
  </article>`;
}

function section(name, items) {
  if (!items.length) return nothing;
  return html`<section class="rules-section" data-section=${name}><h3>${r(`section_${name}`)}</h3><ul>${items}</ul></section>`;
}

function boardFacts(f, caps) {
  const b = f.board;
  const out = [
    fact("stations", r("boardStations", { n: b.stations, posts: b.posts, camps: b.camps, hqs: b.hqs })),
    fact("arms", r("boardArms", { seats: b.seats, rows: b.arm.rows, cols: b.arm.cols })),
    fact("rails", r("boardRails", { n: b.rail_stations, lines: b.lines })),
  ];
  if (b.centre) out.push(fact("centre", r("boardCentre", { n: b.centre })));
  if (caps.mountain) out.push(fact("mountain", r("boardMountain")));
  const teams = f.variant.teams;
  if (caps.teams === "fixed") out.push(fact("teams", r("teamsFixed")));
  else if (caps.teams === "banker") out.push(fact("teams", r("teamsBanker", { n: teams.length - 1 })));
  else out.push(fact("teams", r("teamsNone", { n: teams.length })));
  return out;
}

function pieceTable(counts) {
  return html`<table class="rules-pieces"><tbody>${Object.entries(counts).map(([rank, n]) =>
    html`<tr data-rank=${rank}><td>${rankName(rank)}</td><td class="n">${n}</td></tr>`)}</tbody></table>`;
}

function pieceFacts(f) {
  const p = f.pieces;
  const total = Object.values(p.all).reduce((a, n) => a + n, 0);
  const out = [];
  if (p.army) {
    const each = Object.values(p.army).reduce((a, n) => a + n, 0);
    out.push(fact("army", html`${r("armyEach", { n: each, seats: f.variant.seats })}${pieceTable(p.army)}`));
    return out;
  }
  out.push(fact("all", html`${r("piecesAll", { n: total })}${pieceTable(p.all)}`));
  const h = p.hands;
  if (h.face_down) out.push(fact("face_down", r("handsFaceDown", { n: h.face_down })));
  else if (h.bottom) {
    out.push(fact("hands", r("handsBanker", { each: h.each, bottom: h.bottom, keeps: h.banker_keeps, banker: h.banker,
      idle: h.idle, extra: h.idle_extra.lieutenant ?? 0, specials: ranks(Object.keys(h.specials)) })));
  } else out.push(fact("hands", r("handsEach", { n: h.each })));
  return out;
}

function movementFacts(f) {
  const o = f.rules, m = f.movement;
  return [
    fact("road", r("moveRoad")),
    fact("rail", r("moveRail")),
    fact("rail_turners", r("moveTurners", { ranks: ranks(m.rail_turners) })),
    fact("camps", r("moveCamps")),
    fact("hq_lock", onOff(o.hq_lock, "hqLock", "hqFree")),
    fact("immobile", r("moveImmobile", { ranks: ranks(m.immobile) })),
    fact("turn_direction", r(`turn_${o.turn_direction}`)),
  ];
}

const OUTCOME_MARK = { attacker: "attackerWins", defender: "defenderWins", both: "bothDie" };

function combatFacts(f) {
  const o = f.rules, c = f.combat;
  const out = [
    fact("officers", r("combatRanks", { ranks: c.officers.map(rankName).join(" > ") })),
    fact("mine_trades", mineSentence(c)),
    fact("bomb_takes_flag", onOff(o.bomb_takes_flag, "bombTakesFlag", "bombTradesFlag")),
  ];
  if (o.hq_dig) out.push(fact("hq_dig", r("hqDig")));
  out.push(fact("engineer_scouting", r(`scouting_${o.engineer_scouting}`)));
  out.push(html`<li class="combat-table"><details><summary>${r("combatTable")}</summary>
    <div class="scroll"><table class="rules-combat"><thead><tr><th>${r("attackerDefender")}</th>
      ${c.defenders.map((d) => html`<th>${rankName(d)}</th>`)}</tr></thead>
    <tbody>${c.attackers.map((a) => html`<tr data-attacker=${a}><th>${rankName(a)}</th>
      ${c.defenders.map((d) => html`<td class=${c.outcomes[a][d]} data-defender=${d}>${r(OUTCOME_MARK[c.outcomes[a][d]])}</td>`)}</tr>`)}</tbody>
    </table></div><p class="sub">${r("combatLegend")}</p></details></li>`);
  return out;
}

// Who clears a landmine, who dies with it and who on it, read from the fights (bombs apart:
// a bomb's own sentence says it).
export function mineSentence(c) {
  const hit = (outcome) => c.attackers.filter((a) => a !== "bomb" && c.outcomes[a].landmine === outcome);
  const [clear, trade, die] = [hit("attacker"), hit("both"), hit("defender")];
  const rest = !die.length ? r("mineRestTrade") : trade.length ? r("mineTradeRestDie", { ranks: ranks(trade) }) : r("mineRestDie");
  return `${r("mineClear", { ranks: ranks(clear) })}; ${rest}`;
}

function deploymentFacts(f) {
  const o = f.rules, d = f.deployment;
  const out = [
    fact("deploy_seconds", r("deploySeconds", { s: o.deploy_seconds })),
    fact("flag_in_hq", r("flagInHq")),
    fact("landmine_rows", r("landmineRows", { rows: d.landmine_rows.join(language() === "zh" ? "、" : ", ") })),
    fact("bombs_in_front_row", onOff(o.bombs_in_front_row, "bombsFrontYes", "bombsFrontNo")),
    fact("camps_empty", r("campsEmpty")),
  ];
  if (o.dealt_flags) out.push(fact("dealt_flags", r("dealtFlags")));
  if (o.extra_mines_row4) out.push(fact("extra_mines_row4", r("extraMines", { n: d.mines_before_row4 })));
  return out;
}

function clockFacts(f) {
  const o = f.rules;
  const out = [
    fact("move_seconds", r("moveSeconds", { s: o.move_seconds })),
    fact("max_skips", r("maxSkips", { n: o.max_skips })),
    fact("timeouts_are_escape", onOff(o.timeouts_are_escape, "timeoutsEscape", "timeoutsOut")),
    fact("blocked_is_defeat", onOff(o.blocked_is_defeat, "blockedDefeat", "blockedSkip")),
  ];
  return out;
}

function drawFacts(f) {
  const o = f.rules;
  const out = [
    fact("no_capture_plies", o.no_capture_plies === null ? r("noCaptureNone") : r("noCapture", { n: o.no_capture_plies })),
    fact("max_total_moves", o.max_total_moves === null ? r("moveLimitNone") : r("moveLimit", { n: o.max_total_moves })),
    fact("draw_proposals", r(o.surrender_counts_as_proposal ? "proposalsShared" : "proposals", { n: o.draw_proposals })),
  ];
  if (o.proposals_after_moves) out.push(fact("proposals_after_moves", r("proposalsAfter", { n: o.proposals_after_moves })));
  if (!o.surrender_allowed) out.push(fact("surrender", r("surrenderNo")));
  else {
    out.push(fact("surrender", o.surrender_after_seconds ? r("surrenderAfter", { s: o.surrender_after_seconds }) : r("surrenderAny")));
    if (o.surrender_needs_partner) out.push(fact("surrender_needs_partner", r("surrenderPartner")));
  }
  return out;
}

function informationFacts(f) {
  const o = f.rules;
  const out = [fact("information", r(`info_${o.information}`))];
  out.push(fact("marshal_death_reveals_flag", onOff(o.marshal_death_reveals_flag, "marshalShowsFlag", "marshalShowsNothing")));
  if (o.announce_commander_deaths) out.push(fact("announce_commander_deaths", r("commanderDeaths")));
  return out;
}

function scoringFacts(f) {
  const o = f.rules, s = f.scoring;
  const out = [fact("stakes", r("stakes", s.stakes))];
  out.push(fact("escape_rule", r(`score_${o.escape_rule}`, { x: o.score_x, y: o.score_y, z: o.score_z })));
  out.push(fact("rated_with_bots", onOff(f.room.rated_with_bots, "ratedWithBots", "unratedWithBots")));
  out.push(fact("rated_friend_rooms", onOff(f.room.rated_friend_rooms, "ratedFriendRooms", "unratedFriendRooms")));
  out.push(fact("table_rules", r("tableMayChange", { names: f.table_may_change.map((k) => r(`opt_${k}`)).join(language() === "zh" ? "、" : ", ") })));
  return out;
}

function penaltyFacts(f) {
  const o = f.rules, p = f.penalties;
  const bans = p.bans_minutes.slice(2).map((m) => (m % 60 ? r("minutes", { n: m }) : r("hours", { n: m / 60 })));
  return [
    fact("escape", r("escapeCost", { n: f.scoring.escape_stakes })),
    fact("escape_others", r(`escape_${o.escape_rule}`, { z: o.score_z, rounds: f.scoring.escape_rounds })),
    fact("disconnect_grace_seconds", r(o.pause_on_disconnect ? "gracePause" : "grace", { s: o.disconnect_grace_seconds })),
    fact("bans", r("escapeBans", { days: p.memory_days, bans: bans.join(" / ") })),
  ];
}

function ownFacts(f, caps) {
  const o = f.rules, out = [];
  if (caps.picks_colours) out.push(fact("picks_colours", r("ownPick")), fact("redeals", r("ownRedeal", { n: o.redeals })));
  if (caps.bids) {
    out.push(fact("bids", r("ownBids", { contracts: caps.contracts.map((n) => t(`bid${n}`)).join(" / ") })));
  }
  if (caps.flips) {
    out.push(fact("flips", r("ownFlip")));
    if (f.flag_carry) out.push(fact("flag_carry", r("ownFlagCarry", { n: f.flag_carry.landmines })));
  }
  if (o.dealt_flags) out.push(fact("dealt_flags_defeat", r("ownDealtFlags")));
  if (o.random_seats) out.push(fact("random_seats", r("ownRandomSeats")));
  if (caps.teams === "none" && f.variant.seats > 2) out.push(fact("first_strike", r("ownFirstStrike")));
  return out;
}
