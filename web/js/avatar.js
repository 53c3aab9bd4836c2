// A player's look, in the lobby, at the table and on profiles: an avatar drawn from the name
// alone (the same name gives the same picture on every page and device; nothing is fetched)
// and the 军衔 badge of a title, and the link to the player's page. The server names the title
// and its level (1 for 兵 up); the badge only shades by the level, so the client knows nothing
// of what points a title takes.

import { html, nothing, svg } from "../vendor/lit-html/lit-html.js";
import { t, titleName } from "./i18n.js";

// FNV-1a over the name's UTF-16 code units: a stable 32-bit number to draw the colours from.
export function nameHash(name) {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// The picture in a 32×32 box: a disc in the name's colour, a ring in a second one, and the
// name's first character (a whole one: a CJK character or an emoji, never half of one).
function drawing(name) {
  const h = nameHash(name);
  const hue = h % 360, ring = (hue + 40 + ((h >>> 9) % 200)) % 360, light = 34 + ((h >>> 17) % 14);
  const letter = [...name][0]?.toUpperCase() ?? "?";
  return svg`<circle cx="16" cy="16" r="15" fill=${`hsl(${hue} 55% ${light}%)`}
      stroke=${`hsl(${ring} 70% 62%)`} stroke-width="2"></circle>
    <text x="16" y="21.5" text-anchor="middle" font-size="16" font-weight="700" fill="#fff">${letter}</text>`;
}

// ``data-avatar``: the hash the picture is drawn from (for tests: the same name, the same one).
export function avatar(name, size = 32) {
  if (!name) return nothing;
  return html`<svg class="avatar" width=${size} height=${size} viewBox="0 0 32 32" aria-hidden="true"
    data-avatar=${nameHash(name).toString(16)}>${drawing(name)}</svg>`;
}

// The same picture inside an SVG drawing (the seat panels on the board), at ``x``, ``y``.
export function avatarIn(name, x, y, size) {
  if (!name) return nothing;
  return svg`<svg class="avatar" x=${x} y=${y} width=${size} height=${size} viewBox="0 0 32 32"
    data-avatar=${nameHash(name).toString(16)}>${drawing(name)}</svg>`;
}

// The 军衔 badge: the title's words on a chip shaded by its level (higher, warmer and darker).
export function rankBadge(title, level) {
  if (!title) return nothing;
  const words = titleName(title);
  return html`<span class="rank-badge" data-title-level=${level ?? ""} title=${`${t("titleOf")}: ${words}`}
    .style=${`--rank:${level ?? 1}`}>${words}</span>`;
}

// The badge inside an SVG drawing, its right edge at ``right``; about 13 px a Chinese character,
// 7 a Latin letter.
export function rankBadgeIn(title, level, right, y) {
  if (!title) return nothing;
  title = titleName(title);
  const w = 12 + [...title].reduce((sum, c) => sum + (c.charCodeAt(0) > 0x2e80 ? 13 : 7), 0);
  return svg`<g class="rank-badge" data-title-level=${level ?? ""} transform=${`translate(${right - w},${y})`}
      .style=${`--rank:${level ?? 1}`}>
    <rect width=${w} height="18" rx="4"></rect><text x=${w / 2} y="13.5">${title}</text></g>`;
}

// A player's name as a link to their page (#user/<name>).
export function profileLink(name) {
  return html`<a class="profile-link" href=${`#user/${encodeURIComponent(name)}`}>${name}</a>`;
}
