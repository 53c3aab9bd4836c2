// The board, drawn in SVG from the server's board data alone: turned so that a chosen seat's arm
// is at the bottom, each seat's panel beside its arm, and on top of the pieces every mark a
// player needs (selection, destinations and attacks, last moves, fights, shown flags, layout
// problems). It knows no rules: it draws the model it is given and reports clicks and drags.
// Every station's clickable element carries data-station, every seat panel data-seat.

import { svg, nothing } from "../vendor/lit-html/lit-html.js";
import { repeat } from "../vendor/lit-html/directives/repeat.js";
import { avatarIn, rankBadgeIn } from "./avatar.js";
import { rankName, t } from "./i18n.js";

export const UNIT = 40; // user units per board unit (the distance of two neighbouring stations)
export const ARMY_COLOURS = ["#c0392b", "#c27c0e", "#1e8449", "#2e5aa8"];
export const NEUTRAL = "#6b7280";
const PANEL = { side: [5.2, 3.5], outward: [6.6, 2.3] }; // panel width, height in board units
// each army's shape, so that armies are told apart without their colours too
const SHAPES = [
  "M0,-4.5 L4.5,3.5 L-4.5,3.5 Z", // ▲
  "M-4,0 A4,4 0 1,0 4,0 A4,4 0 1,0 -4,0 Z", // ●
  "M-3.8,-3.8 H3.8 V3.8 H-3.8 Z", // ■
  "M0,-5 L5,0 L0,5 L-5,0 Z", // ◆
];
const shape = (army, x, y, scale = 1) => (SHAPES[army] === undefined ? nothing
  : svg`<path class="army-mark" d=${SHAPES[army]} transform=${`translate(${x},${y}) scale(${scale})`}></path>`);

// --- geometry ---------------------------------------------------------------------------------

const geometries = new Map();

// Where everything goes when ``bottom``'s arm is at the bottom and the panels are placed
// ``mode`` ("side": at each arm's right hand; "outward": beyond each arm).
export function geometry(data, bottom, mode) {
  const key = `${data.key}/${bottom}/${mode}`;
  if (!geometries.has(key)) geometries.set(key, makeGeometry(data, bottom, mode));
  return geometries.get(key);
}

function makeGeometry(data, bottom, mode) {
  const all = data.stations;
  const cx = all.reduce((a, s) => a + s.xy[0], 0) / all.length;
  const cy = all.reduce((a, s) => a + s.xy[1], 0) / all.length;
  const armOf = (seat) => all.filter((s) => s.seat === seat);
  const mean = (list) => [list.reduce((a, s) => a + s.xy[0], 0) / list.length, list.reduce((a, s) => a + s.xy[1], 0) / list.length];
  const [ax, ay] = mean(armOf(bottom));
  const angle = Math.PI / 2 - Math.atan2(ay - cy, ax - cx);
  const cos = Math.cos(angle), sin = Math.sin(angle);
  const points = new Map();
  for (const s of all) {
    const dx = s.xy[0] - cx, dy = s.xy[1] - cy;
    points.set(s.id, [dx * cos - dy * sin, dx * sin + dy * cos]);
  }
  const arms = new Map();
  for (const seat of data.seats) {
    const ids = armOf(seat).map((s) => s.id);
    const pts = ids.map((id) => points.get(id));
    const centroid = [pts.reduce((a, p) => a + p[0], 0) / pts.length, pts.reduce((a, p) => a + p[1], 0) / pts.length];
    const byRowCol = new Map(armOf(seat).map((s) => [`${s.row}${s.col}`, points.get(s.id)]));
    const corners = ["11", "15", "65", "61"].map((rc) => {
      const [x, y] = byRowCol.get(rc);
      const dx = x - centroid[0], dy = y - centroid[1], d = Math.hypot(dx, dy);
      return [x + (dx / d) * 0.75, y + (dy / d) * 0.75];
    });
    arms.set(seat, { ids, centroid, corners });
  }
  const occupied = [...points.values()];
  const panels = new Map();
  const [w, h] = PANEL[mode];
  for (const seat of data.seats) {
    const { centroid } = arms.get(seat);
    const d = Math.hypot(centroid[0], centroid[1]) || 1;
    const u = [centroid[0] / d, centroid[1] / d]; // outward from the centre
    const dir = mode === "outward" ? u : [u[1], -u[0]]; // the owner's right hand, facing the centre
    for (let r = 0; r < 30; r += 0.1) {
      const box = { x: centroid[0] + dir[0] * r - w / 2, y: centroid[1] + dir[1] * r - h / 2, w, h };
      const clear = occupied.every(([x, y]) => x < box.x - 0.5 || x > box.x + w + 0.5 || y < box.y - 0.5 || y > box.y + h + 0.5)
        && [...panels.values()].every((o) => box.x > o.x + o.w + 0.2 || box.x + w < o.x - 0.2 || box.y > o.y + o.h + 0.2 || box.y + h < o.y - 0.2);
      if (clear) { panels.set(seat, box); break; }
    }
  }
  const xs = [], ys = [];
  for (const [x, y] of occupied) { xs.push(x - 0.8, x + 0.8); ys.push(y - 0.8, y + 0.8); }
  for (const b of panels.values()) { xs.push(b.x - 0.15, b.x + b.w + 0.15); ys.push(b.y - 0.15, b.y + b.h + 0.15); }
  const minX = Math.min(...xs), minY = Math.min(...ys);
  const box = [minX, minY, Math.max(...xs) - minX, Math.max(...ys) - minY];
  // without a centre the arms meet face to face (二人), and the rails between them run straight
  const faceToFace = !all.some((s) => s.kind === "centre");
  return { data, bottom, mode, points, arms, panels, box, faceToFace };
}

// The placement of panels that shows the board biggest in a box of ``width`` × ``height`` CSS
// px, and the pixels per board unit it gives.
export function bestGeometry(data, bottom, width, height) {
  let best = null;
  for (const mode of ["side", "outward"]) {
    const g = geometry(data, bottom, mode);
    const scale = Math.min(width / g.box[2], height / g.box[3]);
    if (!best || scale > best.scale * 1.02) best = { geometry: g, scale };
  }
  return best;
}

// Whether the pointer is a finger, which needs bigger targets than a mouse.
export const coarse = () => matchMedia("(pointer: coarse)").matches;

// How a board at ``best`` (bestGeometry) is shown, ``zoomed`` or whole: a board whose stations
// would get less than a finger's (or a mouse's) target is shown whole and zooms in on a tap;
// ``k``: the zoom factor, ``need``: the px per board unit a target needs, ``zoomable``: whether
// 放大/全图 is worth offering.
export function zoomOf(best, zoomed) {
  const touch = coarse();
  const need = touch ? 32 : 14;
  const k = zoomed ? Math.max(1.6, 44 / best.scale) : 1;
  return { need, k, zoomable: best.scale < (touch ? 40 : 24), interactive: best.scale * k >= need };
}

// Scroll the zoomed board's box (#board-box) to board point ``x``, ``y`` (board units), or to
// the arm of ``seat`` when no point is given.
export function scrollZoom(geo, width, height, { x, y }, seat) {
  const box = document.querySelector("#board-box");
  if (!box) return;
  const [bx, by, bw, bh] = geo.box;
  if (x === null || x === undefined) [x, y] = geo.arms.get(seat)?.centroid ?? [0, 0];
  box.scrollLeft = ((x - bx) / bw) * width - box.clientWidth / 2;
  box.scrollTop = ((y - by) / bh) * height - box.clientHeight / 2;
}

// --- drawing ----------------------------------------------------------------------------------

const at = (g, id) => { const [x, y] = g.points.get(id); return [x * UNIT, y * UNIT]; };

function edges(g) {
  const { data } = g;
  const byId = new Map(data.stations.map((s) => [s.id, s]));
  const roads = data.road.map(([a, b]) => {
    const [x1, y1] = at(g, a), [x2, y2] = at(g, b);
    return svg`<line class="road" x1=${x1} y1=${y1} x2=${x2} y2=${y2}></line>`;
  });
  const rails = data.rail.map(([a, b]) => {
    const sa = byId.get(a), sb = byId.get(b);
    const [x1, y1] = at(g, a), [x2, y2] = at(g, b);
    let d = `M${x1},${y1} L${x2},${y2}`;
    if (sa.seat !== null && sb.seat !== null && sa.seat !== sb.seat && !g.faceToFace) {
      const mx = (x1 + x2) / 2, my = (y1 + y2) / 2, k = 0.35; // an arc 弧形铁路, bent outward
      d = `M${x1},${y1} Q${mx * (1 + k)},${my * (1 + k)} ${x2},${y2}`;
    }
    return svg`<path class="rail-bed" d=${d}></path><path class="rail-ties" d=${d}></path>`;
  });
  return svg`<g class="edges">${roads}${rails}</g>`;
}

function stations(g) {
  return g.data.stations.map((s) => {
    const [x, y] = at(g, s.id);
    if (s.kind === "camp") return svg`<circle class="station camp" cx=${x} cy=${y} r=${UNIT * 0.36}></circle>`;
    if (s.kind === "hq") {
      return svg`<rect class="station hq" x=${x - 17} y=${y - 12} width="34" height="24" rx="9"></rect>
        <text class="hq-label" x=${x} y=${y + 4}>${t("hqLabel")}</text>`;
    }
    return svg`<rect class="station post" x=${x - 14} y=${y - 9} width="28" height="18" rx="2"></rect>`;
  });
}

function armTints(g, colourOf) {
  return [...g.arms].map(([seat, arm]) => {
    const pts = arm.corners.map(([x, y]) => `${x * UNIT},${y * UNIT}`).join(" ");
    return svg`<polygon class="arm" points=${pts} .style=${`fill:${colourOf(seat)}`}></polygon>`;
  });
}

function piece(g, p, model) {
  const [x, y] = at(g, p.station);
  const slide = model.slide?.target === p.station ? model.slide : null;
  let inner;
  if (p.faceDown) {
    inner = svg`<rect class="back" x="-17" y="-11.5" width="34" height="23" rx="3"></rect>
      <path class="back-mark" d="M-9,-5 L9,5 M-9,5 L9,-5"></path>`;
  } else {
    const colour = p.army === null || p.army === undefined ? NEUTRAL : ARMY_COLOURS[p.army];
    inner = svg`<rect class=${`face${p.gold ? " gold" : ""}${p.mine ? " mine" : ""}`} x="-17" y="-11.5" width="34" height="23" rx="3" .style=${`fill:${colour}`}></rect>
      ${p.label ? svg`<text class="label" y="4.6">${p.label}</text>` : nothing}
      ${shape(p.army, -13, -7.5, 0.55)}
      ${p.carrying ? svg`<text class="carry" x="13" y="-6">⚑</text>` : nothing}
      ${p.mark ? svg`<g class="mark-tag"><rect x="-15" y="-7" width="30" height="15" rx="3"></rect><text y="4.5">${p.mark}</text></g>` : nothing}`;
  }
  const classes = `piece${model.selected === p.station ? " selected" : ""}${model.flippable?.has(p.station) ? " flippable" : ""}`;
  return svg`<g class=${classes} transform=${`translate(${x},${y})`} data-piece=${p.station}
      data-army=${p.army ?? ""} data-rank=${p.rank ?? ""}>
    ${slide ? svg`<g class="slide" .style=${`--dx:${slide.dx}px;--dy:${slide.dy}px`}>${inner}</g>` : inner}
  </g>`;
}

function marks(g, model) {
  const out = [];
  for (const m of model.last ?? []) {
    const [ox, oy] = at(g, m.origin), [tx, ty] = at(g, m.target);
    if (m.latest && m.origin !== m.target) {
      out.push(svg`<line class="last-arrow" x1=${ox} y1=${oy} x2=${tx} y2=${ty} .style=${`stroke:${m.colour}`}></line>`);
    }
    if (m.origin !== m.target) {
      out.push(svg`<rect class="last-from" x=${ox - 19} y=${oy - 13.5} width="38" height="27" rx="4" .style=${`stroke:${m.colour}`}></rect>`);
    }
    out.push(svg`<rect class=${`last-to${m.latest ? " latest" : ""}`} x=${tx - 20} y=${ty - 14.5} width="40" height="29" rx="4"
      .style=${`stroke:${m.colour}`} data-last=${m.seat}></rect>`);
  }
  for (const [station, kind] of model.flags ?? []) {
    const [x, y] = at(g, station);
    out.push(svg`<g class=${`flag-mark ${kind}`} transform=${`translate(${x},${y})`} data-flag=${station}>
      <rect x="-20" y="-14.5" width="40" height="29" rx="4"></rect>
      <circle cx="15" cy="-12" r="7"></circle><text x="15" y="-8.5">${t(kind === "raised" ? "flagRaisedMark" : "flagShownMark")}</text></g>`);
  }
  for (const [station, codes] of model.problems ?? []) {
    const [x, y] = at(g, station);
    out.push(svg`<g class="problem-mark" transform=${`translate(${x},${y})`} data-problem=${station}>
      <title>${codes.join("\n")}</title>
      <rect x="-20" y="-14.5" width="40" height="29" rx="4"></rect>
      <circle cx="-15" cy="-12" r="7"></circle><text x="-15" y="-8.5">!</text></g>`);
  }
  if (model.hover) {
    for (const station of new Set([model.hover.origin, model.hover.target])) {
      const [x, y] = at(g, station);
      out.push(svg`<rect class="hover-mark" x=${x - 22} y=${y - 16} width="44" height="32" rx="6"></rect>`);
    }
  }
  for (const station of model.guide ?? []) { // the stations the newcomer's guide points at (guide.js)
    const [x, y] = at(g, station);
    out.push(svg`<rect class="guide-mark" x=${x - 21} y=${y - 15.5} width="42" height="31" rx="7" data-guide=${station}></rect>`);
  }
  if (model.selected) {
    const [x, y] = at(g, model.selected);
    out.push(svg`<rect class="selected-mark" x=${x - 21} y=${y - 15.5} width="42" height="31" rx="5"></rect>`);
  }
  for (const [station, kind] of model.targets ?? []) {
    const [x, y] = at(g, station);
    if (kind === "attack") {
      out.push(svg`<g class="attack-mark" transform=${`translate(${x},${y})`} data-target=${station} data-kind="attack">
        <path d="M-22,-9 V-16 H-14 M14,-16 H22 V-9 M22,9 V16 H14 M-14,16 H-22 V9"></path>
        <text class="attack-sign" x="0" y="-19">⚔</text></g>`);
    } else if (kind === "raise") {
      out.push(svg`<g class="raise-mark" transform=${`translate(${x},${y})`} data-target=${station} data-kind="raise">
        <rect x="-21" y="-15.5" width="42" height="31" rx="5"></rect></g>`);
    } else {
      out.push(svg`<circle class="move-dot" cx=${x} cy=${y} r="7" data-target=${station} data-kind="move"></circle>`);
    }
  }
  return out;
}

function fights(g, model) {
  return repeat(model.fights ?? [], (f) => f.key, (f) => {
    const [x, y] = at(g, f.station);
    const up = y - 42 < g.box[1] * UNIT ? 44 : -44; // below the station if it would leave the board
    return svg`<g class=${`fight ${f.outcome}`} transform=${`translate(${x},${y})`} data-fight=${f.outcome} data-seq=${f.key}>
      <circle class="burst" r="22"></circle>
      <g transform=${`translate(0,${up})`}>
        <rect x="-62" y="-17" width="124" height="34" rx="6"></rect>
        <text class="fight-ranks" y="-2">${f.ranks}</text>
        <text class="fight-outcome" y="12">${f.text}</text>
      </g></g>`;
  });
}

function button(x, y, w, label, action, seat) {
  return svg`<g class="svg-button" role="button" tabindex="0" data-action=${action} data-seat-action=${seat}
      transform=${`translate(${x},${y})`}>
    <rect width=${w} height="34" rx="6"></rect><text x=${w / 2} y="22">${label}</text></g>`;
}

// A quick phrase the seat said a moment ago, over the panel's least needed line (the title;
// on a compact panel, the name): the status, the clock and the buttons stay in view.
function bubble(b, w, top) {
  return svg`<g class="bubble" data-bubble=${b.key} pointer-events="none">
    <rect x="40" y=${top} width=${w - 48} height="30" rx="15"></rect>
    <text x=${(w - 8 + 40) / 2} y=${top + 21}>${b.text}</text></g>`;
}

// ``text`` cut to about ``room`` user units at font ``size`` (a CJK character is as wide as the
// font is high, others about 0.6 of it), with "…" where it was cut.
function fit(text, room, size) {
  let width = 0;
  for (const [i, ch] of [...text].entries()) {
    width += ch.codePointAt(0) >= 0x2e80 ? size : size * 0.6;
    if (width > room) return `${[...text].slice(0, Math.max(1, i - 1)).join("")}…`;
  }
  return text;
}

function panel(g, p) {
  const box = g.panels.get(p.seat);
  if (!box) return nothing;
  const x = box.x * UNIT, y = box.y * UNIT, w = box.w * UNIT, h = box.h * UNIT;
  const compact = g.mode === "outward";
  const clock = p.clock;
  const classes = ["seat-panel", p.toMove ? "to-move" : "", p.you ? "you" : "", p.eliminated ? "eliminated" : "",
    clock && clock.left <= 10 ? "urgent" : "", p.empty ? "empty" : ""].join(" ");
  const line = (n) => (compact ? 24 + n * 34 : 30 + n * 27);
  const badge = p.badge ? svg`<text class="badge" x="22" y="29">${p.badge}</text>` : nothing;
  const status = p.status.map((s, i) => svg`<tspan class=${s.kind ?? ""} dx=${i ? 8 : 0}>${s.text}</tspan>`);
  const buttonsY = compact ? 40 : p.empty ? 50 : 96;
  // beside the name while they fit there, else across the whole panel (two on a side panel)
  const count = p.buttons?.length ?? 0;
  const left = 46 + count * 96 - 8 <= w - 10 ? 46 : 10;
  const bw = left === 46 ? 88 : (w - 20 - (count - 1) * 8) / count;
  const buttons = (p.buttons ?? []).map((b, i) => button(left + i * (bw + 8), buttonsY, bw, b.label, b.action, p.seat));
  const showStatus = !p.empty && !(compact && buttons.length);
  // a compact panel's clock stands at the end of the name's line, never over the status line
  const you = p.you ? `(${p.youLabel})` : "";
  const name = fit(p.name, w - 46 - (compact && clock ? 72 : 10) - (you ? 6 + you.length * 13 : 0), 17);
  return svg`<g class=${classes} data-seat=${p.seat} transform=${`translate(${x},${y})`}
      .style=${`--seat:${p.colour}`}>
    <clipPath id=${`panel-clip-${p.seat}`}><rect width=${w} height=${h} rx="10"></rect></clipPath>
    <rect class="panel-bg" width=${w} height=${h} rx="10"></rect>
    <g clip-path=${`url(#panel-clip-${p.seat})`}>
    <rect class="swatch" x="8" y="8" width="28" height="28" rx="6"></rect>${badge}
    <g class=${p.badge ? "shape-corner" : "shape-inside"}>${p.badge ? shape(p.army, 40, 12, 0.8) : shape(p.army, 22, 22, 1.7)}</g>
    ${avatarIn(p.avatar, 9, 40, 26)}${compact || !p.rank ? nothing : rankBadgeIn(p.rank.title, p.rank.level, w - 8, 44)}
    <text class="seat-name" x="46" y=${line(0)}>${name}${you ? svg`<tspan class="you-tag" dx="6">${you}</tspan>` : nothing}</text>
    ${compact ? nothing : svg`<text class="seat-title" x="46" y=${line(1)}>${p.rank ? `${t("points")} ${p.points}` : p.title}</text>`}
    ${showStatus ? svg`<text class="seat-status" x=${compact ? 46 : 10} y=${compact ? line(1) : line(2)}>${compact ? `${p.title}  ` : ""}${status}</text>` : nothing}
    ${buttons}
    ${p.bubble ? bubble(p.bubble, w, compact ? 4 : line(1) - 21) : nothing}
    ${clock ? svg`<text class="clock" x=${w - 12} y=${compact ? line(0) + 4 : h - 16}>${clock.label}</text>
      <rect class="clock-bar" x="0" y=${h - 5} width=${w * Math.max(0, Math.min(1, clock.fraction))} height="5" rx="2"></rect>` : nothing}
    </g>
  </g>`;
}

// The whole board: ``model`` holds what to draw (see table.js; ``mountain``: the words of the
// mountain line, where the variant's board has one; ``marks``: the player's private marks,
// station -> mark, carried by the stations as data-mark), ``on`` the handlers
// { station(id), drop(from, to), zoom(x, y) (a tap on a board too small to touch),
//   seat(seat) (a click on a seat's panel), panelAction(seat, action) (a panel's button),
//   mark(station, x, y) (a right-click or a long press on a station: true if it opened a menu) }.
export function boardView(g, model, on) {
  const [bx, by, bw, bh] = g.box.map((v) => v * UNIT);
  // a piece's whole name, for screen readers and as its tooltip (the label on it may be short)
  const labels = new Map(model.pieces.map((p) => [p.station, p.rank ? rankName(p.rank) : "?"]));
  return svg`<svg class=${`board board-${g.data.key}${model.interactive ? "" : " overview"}`} viewBox=${`${bx} ${by} ${bw} ${bh}`}
      role="group" aria-label=${model.label ?? ""}
      @pointerdown=${(e) => pointerDown(e, model, on)} @pointermove=${pointerMove} @pointerup=${(e) => pointerUp(e, model, on)}
      @pointercancel=${pointerCancel} @keydown=${(e) => keyDown(e, on)} @contextmenu=${(e) => contextMenu(e, model, on)}>
    <rect class="felt" x=${bx} y=${by} width=${bw} height=${bh} rx="12"></rect>
    <g class="arms">${armTints(g, model.colourOf)}</g>
    ${edges(g)}
    ${model.mountain ? svg`<text class="mountain" x="0" y="6">${model.mountain}</text>` : nothing}
    <g class="stations">${stations(g)}</g>
    <g class="pieces">${repeat(model.pieces, (p) => (model.slide?.target === p.station ? `${p.station}#${model.slide.key}` : p.station), (p) => piece(g, p, model))}</g>
    <g class="marks">${marks(g, model)}</g>
    <g class="fights">${fights(g, model)}</g>
    <g class="panels">${(model.panels ?? []).map((p) => panel(g, p))}</g>
    <g class="hits">${g.data.stations.map((s) => {
      const [x, y] = at(g, s.id);
      const drag = model.draggable?.has(s.id);
      const label = labels.get(s.id);
      return svg`<circle class=${`hit${drag ? " drag" : ""}`} cx=${x} cy=${y} r=${UNIT / 2} data-station=${s.id} data-mark=${model.marks?.get(s.id) ?? nothing}
        tabindex=${model.interactive ? "0" : "-1"} role="button" aria-label=${label === undefined ? s.id : `${s.id} ${label}`}>${label && label !== "?" ? svg`<title>${label}</title>` : nothing}</circle>`;
    })}</g>
    <g class="ghost" pointer-events="none"></g>
  </svg>`;
}

// --- clicks, drags and taps -------------------------------------------------------------------

let press = null; // { station, x, y, id, draggable, dragging, pan, svg, hold, held }
const HOLD_MS = 550; // a finger held this long on a piece asks for its menu (标记)

function userPoint(svgEl, e) {
  const m = svgEl.getScreenCTM().inverse();
  return [e.clientX * m.a + e.clientY * m.c + m.e, e.clientX * m.b + e.clientY * m.d + m.f];
}

// The board takes every touch itself (touch-action: none): a drag from a piece that may move
// moves it, any other drag pans the zoomed board (or the page), a tap is a click.
function pointerDown(e, model, on) {
  if (e.button > 0) return;
  const svgEl = e.currentTarget;
  if (e.target.closest?.(".svg-button") && model.interactive) { press = null; return; }
  const station = e.target.closest?.("[data-station]")?.dataset.station ?? null;
  const box = svgEl.closest(".board-box");
  const panel = e.target.closest?.(".seat-panel")?.dataset.seat;
  press = { station, panel, x: e.clientX, y: e.clientY, id: e.pointerId, dragging: false, svg: svgEl,
    draggable: Boolean(station && model.interactive && model.draggable?.has(station)),
    pan: { box, left: box?.scrollLeft ?? 0, top: box?.scrollTop ?? 0, page: scrollY } };
  if (station && on.mark && model.interactive && e.pointerType !== "mouse") { // a long press: the menu
    const start = press, [x, y] = [e.clientX, e.clientY];
    start.hold = setTimeout(() => { if (press === start && !start.dragging) start.held = on.mark(station, x, y); }, HOLD_MS);
  }
  svgEl.setPointerCapture(e.pointerId);
  e.preventDefault();
}

function pointerMove(e) {
  if (!press || e.pointerId !== press.id) return;
  const dx = e.clientX - press.x, dy = e.clientY - press.y;
  if (!press.dragging && Math.hypot(dx, dy) < 8) return;
  clearTimeout(press.hold);
  if (!press.draggable) { // pan
    press.dragging = true;
    const { box } = press.pan;
    if (box && box.classList.contains("zoomed")) {
      box.scrollLeft = press.pan.left - dx;
      box.scrollTop = press.pan.top - dy;
    } else {
      scrollTo(scrollX, press.pan.page - dy);
    }
    return;
  }
  const ghost = press.svg.querySelector(".ghost");
  if (!press.dragging) {
    press.dragging = true;
    const source = press.svg.querySelector(`[data-piece="${CSS.escape(press.station)}"]`);
    ghost.replaceChildren();
    if (source) ghost.appendChild(source.cloneNode(true));
    press.svg.classList.add("dragging");
  }
  const [x, y] = userPoint(press.svg, e);
  ghost.firstChild?.setAttribute("transform", `translate(${x},${y}) scale(1.15)`);
}

function pointerUp(e, model, on) {
  const button = e.target.closest?.(".svg-button");
  if (button && !press?.dragging && model.interactive) { // too small to touch: zoom in first
    on.panelAction?.(Number(button.dataset.seatAction), button.dataset.action);
    return;
  }
  const start = press;
  press = null;
  clearTimeout(start?.hold);
  if (start?.held) return; // the press opened a menu: no click
  const svgEl = e.currentTarget;
  svgEl.classList.remove("dragging");
  svgEl.querySelector(".ghost")?.replaceChildren();
  if (!start || e.pointerId !== start.id) return;
  const moved = start.dragging;
  if (!model.interactive) {
    if (!moved && on.zoom) {
      const [x, y] = userPoint(svgEl, e);
      on.zoom(x / UNIT, y / UNIT);
    }
    return;
  }
  if (moved && start.draggable) {
    const under = document.elementFromPoint(e.clientX, e.clientY)?.closest?.("[data-station]");
    const target = under?.dataset.station;
    if (target && target !== start.station) on.drop(start.station, target);
    return;
  }
  if (!moved && start.station) on.station(start.station);
  else if (!moved && start.panel !== undefined) on.seat?.(Number(start.panel));
}

function pointerCancel(e) {
  clearTimeout(press?.hold);
  if (press) press.svg.classList.remove("dragging");
  e.currentTarget.querySelector(".ghost")?.replaceChildren();
  press = null;
}

// A right-click on a station asks for its menu (标记); the browser's own menu only elsewhere.
function contextMenu(e, model, on) {
  const station = e.target.closest?.("[data-station]")?.dataset.station;
  if (!station || !on.mark || !model.interactive) return;
  if (press?.held || on.mark(station, e.clientX, e.clientY)) e.preventDefault();
}

const ARROWS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

// The arrow keys go from station to station: to the nearest one that way.
function arrow(e, dir) {
  const here = e.target.getBoundingClientRect();
  const [hx, hy] = [here.left + here.width / 2, here.top + here.height / 2];
  let best = null, bestScore = Infinity;
  for (const hit of e.currentTarget.querySelectorAll("circle.hit")) {
    const r = hit.getBoundingClientRect();
    const dx = r.left + r.width / 2 - hx, dy = r.top + r.height / 2 - hy;
    const along = dx * dir[0] + dy * dir[1], across = Math.abs(dx * dir[1] - dy * dir[0]);
    if (along <= 1 || across > along * 1.2) continue;
    const score = along + across * 2;
    if (score < bestScore) { best = hit; bestScore = score; }
  }
  if (best) { e.preventDefault(); best.focus(); }
}

function keyDown(e, on) {
  const dir = ARROWS[e.key];
  if (dir && e.target.classList?.contains("hit")) { arrow(e, dir); return; }
  if (e.key !== "Enter" && e.key !== " ") return;
  const button = e.target.closest?.(".svg-button");
  const hit = e.target.closest?.("[data-station]");
  if (!button && !hit) return;
  e.preventDefault();
  if (button) on.panelAction?.(Number(button.dataset.seatAction), button.dataset.action);
  else on.station(hit.dataset.station);
}
