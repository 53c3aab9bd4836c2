// The board, drawn in SVG from the server's board data alone, turned so that the viewer's arm is
// at the bottom. It knows no rules: it draws what it is given and reports clicks and drags.

import { RANK_SHORT } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const UNIT = 40; // pixels per board unit
export const ARMY_COLOURS = ["#c0392b", "#b7950b", "#1e8449", "#6c3483"];

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export class BoardView {
  constructor(container, data, handlers) {
    this.data = data;
    this.handlers = handlers; // { click(station), drop(from, to) }
    this.byId = new Map(data.stations.map((s) => [s.id, s]));
    this.svg = el("svg", { class: "board", role: "img" }, container);
    this.viewer = null;
    this.dragFrom = null;
    this.svg.addEventListener("pointerup", () => { this.dragFrom = null; });
  }

  // The turn that brings the viewer's arm to the bottom of the screen.
  turnFor(viewer) {
    const xs = this.data.stations.map((s) => s.xy);
    const cx = xs.reduce((a, p) => a + p[0], 0) / xs.length;
    const cy = xs.reduce((a, p) => a + p[1], 0) / xs.length;
    const arm = this.data.stations.filter((s) => s.seat === (viewer ?? 0));
    const ax = arm.reduce((a, s) => a + s.xy[0], 0) / arm.length;
    const ay = arm.reduce((a, s) => a + s.xy[1], 0) / arm.length;
    const angle = Math.PI / 2 - Math.atan2(ay - cy, ax - cx);
    return { cx, cy, cos: Math.cos(angle), sin: Math.sin(angle) };
  }

  point(id) {
    const [x, y] = this.byId.get(id).xy;
    const r = this.turn;
    const dx = x - r.cx, dy = y - r.cy;
    return [(dx * r.cos - dy * r.sin) * UNIT, (dx * r.sin + dy * r.cos) * UNIT];
  }

  render(viewer, pieces, marks = {}) {
    this.turn = this.turnFor(viewer);
    const svg = this.svg;
    svg.replaceChildren();
    const pts = this.data.stations.map((s) => this.point(s.id));
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    const pad = UNIT;
    const box = [Math.min(...xs) - pad, Math.min(...ys) - pad,
      Math.max(...xs) - Math.min(...xs) + 2 * pad, Math.max(...ys) - Math.min(...ys) + 2 * pad];
    svg.setAttribute("viewBox", box.join(" "));
    const edges = el("g", { class: "edges" }, svg);
    for (const [a, b] of this.data.road) {
      const [x1, y1] = this.point(a), [x2, y2] = this.point(b);
      el("line", { x1, y1, x2, y2, class: "road" }, edges);
    }
    for (const [a, b] of this.data.rail) {
      const sa = this.byId.get(a), sb = this.byId.get(b);
      const [x1, y1] = this.point(a), [x2, y2] = this.point(b);
      if (sa.seat !== null && sb.seat !== null && sa.seat !== sb.seat && this.data.key !== "liangguo") {
        // an arc 弧形铁路: bend it away from the centre
        const mx = (x1 + x2) / 2, my = (y1 + y2) / 2, k = 0.35;
        el("path", { d: `M${x1},${y1} Q${mx * (1 + k)},${my * (1 + k)} ${x2},${y2}`, class: "rail" }, edges);
      } else {
        el("line", { x1, y1, x2, y2, class: "rail" }, edges);
      }
    }
    const stations = el("g", { class: "stations" }, svg);
    for (const s of this.data.stations) {
      const [x, y] = this.point(s.id);
      const classes = [s.kind, marks.targets?.has(s.id) ? "target" : "",
        marks.problems?.has(s.id) ? "problem" : "", marks.last?.includes(s.id) ? "last" : ""].join(" ");
      if (s.kind === "camp") el("circle", { cx: x, cy: y, r: 13, class: `station ${classes}` }, stations);
      else el("rect", { x: x - 15, y: y - 10, width: 30, height: 20, rx: s.kind === "hq" ? 8 : 2,
        class: `station ${classes}` }, stations);
    }
    const layer = el("g", { class: "pieces" }, svg);
    const move = marks.animate; // the last move: slide the piece from where it came
    for (const p of pieces) {
      const [x, y] = this.point(p.station);
      const from = move && move.target === p.station ? this.point(move.origin) : [x, y];
      const g = el("g", { class: `piece${marks.selected === p.station ? " selected" : ""}`,
        "data-station": p.station, transform: `translate(${from[0]},${from[1]})` }, layer);
      if (from[0] !== x || from[1] !== y) {
        requestAnimationFrame(() => requestAnimationFrame(() => g.setAttribute("transform", `translate(${x},${y})`)));
      }
      const colour = p.face_down ? "#7f8c8d" : ARMY_COLOURS[p.army ?? p.seat ?? 0];
      el("rect", { x: -17, y: -11, width: 34, height: 22, rx: 3, fill: colour,
        class: p.gold ? "gold" : "" }, g);
      const label = el("text", { x: 0, y: 5, "text-anchor": "middle" }, g);
      label.textContent = p.face_down ? "" : p.rank ? RANK_SHORT[p.rank] : "";
      if (p.carrying_flag) el("circle", { cx: 14, cy: -9, r: 4, class: "carried" }, g);
    }
    if (move && move.outcome) {
      // a fight: flash where it happened; the colour tells who died
      const [x, y] = this.point(move.target);
      el("circle", { cx: x, cy: y, r: 22, class: `boom ${move.outcome}` }, svg);
    }
    const hits = el("g", { class: "hits" }, svg);
    for (const s of this.data.stations) {
      const [x, y] = this.point(s.id);
      const hit = el("circle", { cx: x, cy: y, r: 17, class: "hit", "data-station": s.id,
        tabindex: "0", role: "button", "aria-label": s.id }, hits);
      hit.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); this.handlers.click(s.id); }
      });
      hit.addEventListener("pointerdown", (e) => { this.dragFrom = s.id; e.preventDefault(); });
      hit.addEventListener("pointerup", (e) => {
        const from = this.dragFrom;
        this.dragFrom = null;
        e.stopPropagation();
        if (from && from !== s.id) this.handlers.drop(from, s.id);
        else this.handlers.click(s.id);
      });
    }
  }
}
