// The deal, re-derived in the browser: a bit-exact port of engine/deal.py, so that a player can
// check a finished game's deal without trusting the server (docs/fairness.md).
//
// commitment(seed) = sha256("junqi-deal:" + seed), published before the deal. Each shuffle is
// Python's random.Random (MT19937) seeded with the big-endian integer of
// sha256("junqi/<seed>/<label>/..."), over the pieces in a fixed canonical order: ported here
// word for word (init_by_array, getrandbits, _randbelow, shuffle, sample of CPython 3.11).
// No DOM here: the page's part is fairness.js.

const encoder = new TextEncoder();
const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

// SHA-256 of a text's UTF-8 bytes, by the browser's own crypto.subtle.digest; on a page that
// is not a secure context (plain http to another machine), where crypto.subtle is missing, by
// the few lines of sha256Fallback below (tests/web/test_fairness.py checks they agree).
export async function sha256(text) {
  const bytes = encoder.encode(text);
  if (globalThis.crypto?.subtle) return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return sha256Fallback(bytes);
}

const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export function sha256Fallback(bytes) {
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  const length = bytes.length;
  const padded = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  const h = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      [hh, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, hh].forEach((x, i) => { h[i] += x; });
  }
  const out = new Uint8Array(32);
  h.forEach((x, i) => new DataView(out.buffer).setUint32(4 * i, x));
  return out;
}

// engine.deal.commitment: the hash published before the deal.
export async function commitment(seed) {
  return hex(await sha256(`junqi-deal:${seed}`));
}

// --- Python's random.Random ---------------------------------------------------------------------

const N = 624, M = 397;

export class PyRandom {
  // random.Random(n) for a non-negative integer n given as its 32-bit words, least significant
  // first, without high zero words (CPython's random_seed: init_by_array over those words).
  constructor(key) {
    const mt = this.mt = new Uint32Array(N);
    mt[0] = 19650218;
    for (let i = 1; i < N; i++) mt[i] = Math.imul(1812433253, mt[i - 1] ^ (mt[i - 1] >>> 30)) + i;
    let i = 1, j = 0;
    for (let k = Math.max(N, key.length); k; k--) {
      mt[i] = (mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1664525)) + key[j] + j;
      i++; j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k; k--) {
      mt[i] = (mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1566083941)) - i;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
    this.index = N;
  }

  // genrand_uint32
  next32() {
    const mt = this.mt;
    if (this.index >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[(kk + 1) % N] & 0x7fffffff);
        mt[kk] = mt[(kk + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  getrandbits(k) { // 1 <= k <= 32, all a deal needs
    return this.next32() >>> (32 - k);
  }

  randbelow(n) { // _randbelow_with_getrandbits
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  shuffle(x) {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [x[i], x[j]] = [x[j], x[i]];
    }
  }

  sample(population, k) {
    const n = population.length;
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    const result = [];
    if (n <= setsize) {
      const pool = [...population];
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result.push(pool[j]);
        pool[j] = pool[n - i - 1];
      }
    } else {
      const selected = new Set();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result.push(population[j]);
      }
    }
    return result;
  }
}

// engine.deal.seeded_rng: random.Random(int.from_bytes(sha256("junqi/<seed>/<labels>"), "big"))
export async function seededRng(seed, ...labels) {
  const digest = await sha256(["junqi", seed, ...labels.map(String)].join("/"));
  const view = new DataView(digest.buffer);
  const key = [];
  for (let w = 7; w >= 0; w--) key.push(view.getUint32(4 * w)); // least significant first
  while (key.length > 1 && key[key.length - 1] === 0) key.pop();
  return new PyRandom(key);
}

// --- the deals ----------------------------------------------------------------------------------

// engine.pieces.STANDARD_ARMY, in its order
const STANDARD_ARMY = [
  ["field_marshal", 1], ["general", 1], ["major_general", 2], ["brigadier", 2], ["colonel", 2],
  ["major", 2], ["captain", 3], ["lieutenant", 3], ["engineer", 3], ["landmine", 3], ["bomb", 2],
  ["flag", 1],
];
const SANDAYI_EXTRAS = [["supreme_marshal", null], ["fortress", null], ["missile", null]];
const IDLE_LIEUTENANTS = 5;
const BANKER_KEEPS = 19;

// A dealt piece is [rank, army] (army null for 三打一's extras), as in engine/deal.py.
export function standardArmies(count) {
  const out = [];
  for (let army = 0; army < count; army++) {
    for (const [rank, n] of STANDARD_ARMY) for (let i = 0; i < n; i++) out.push([rank, army]);
  }
  return out;
}

export async function dealLuanzhan(seed, number = 0) {
  const pieces = standardArmies(4);
  for (let colour = 0; colour < 4; colour++) {
    pieces.splice(pieces.findIndex(([r, a]) => r === "engineer" && a === colour), 1);
  }
  (await seededRng(seed, "luanzhan", number)).shuffle(pieces);
  const hands = [0, 1, 2, 3].map((c) => pieces.slice(24 * c, 24 * (c + 1)));
  return { number, hands, handFor: (colour) => [["engineer", colour], ...hands[colour]] };
}

export async function dealSandayi(seed, number = 0) {
  const pieces = standardArmies(4);
  (await seededRng(seed, "sandayi", number)).shuffle(pieces);
  const hands = [0, 1, 2, 3].map((s) => pieces.slice(20 * s, 20 * (s + 1)));
  const bottom = [...pieces.slice(80), ...SANDAYI_EXTRAS];
  const kept = (await seededRng(seed, "sandayi-bottom", number)).sample(bottom, BANKER_KEEPS);
  return { number, hands, bottom, kept };
}

// ``stations``: the board's stations but its camps, in the board's order (as the server lists them)
export async function dealFanqi(seed, stations) {
  const pieces = standardArmies(2);
  (await seededRng(seed, "fanqi")).shuffle(pieces);
  return new Map(stations.map((s, i) => [s, pieces[i]]));
}

// --- the deal played against the deal re-derived ------------------------------------------------

const key = (rank, army) => `${rank}/${army ?? "-"}`;
function same(a, b) {
  const [x, y] = [[...a].sort(), [...b].sort()];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

// What a list of game events (as the page got them: a seat's own, or a finished game's all)
// shows of the deal: every hand sent with its deal number and whether it is 三打一's final
// hand (after the bidding), the colour picks of each deal, and every piece flipped. A hand may
// say its ``deal`` and ``final`` itself (one a view showed, fairness.js); the same hand told
// twice counts once.
export function playedDeal(events) {
  let deal = 0, bidden = false;
  const hands = [], flips = [], picks = new Map();
  for (const e of events) {
    if (["picking", "bidding", "redealt"].includes(e.kind) && e.deal !== undefined) deal = e.deal;
    else if (e.kind === "colour_picked") {
      if (!picks.has(deal)) picks.set(deal, []);
      picks.get(deal)[e.seat] = e.colour;
    } else if (e.kind === "banker") bidden = true;
    else if (e.kind === "hand" && Array.isArray(e.pieces)) {
      const hand = { deal: e.deal ?? deal, seat: e.seat, final: e.final ?? bidden, pieces: e.pieces };
      const told = JSON.stringify(hand);
      if (!hands.some((h) => JSON.stringify(h) === told)) hands.push(hand);
    }
    else if (e.kind === "flipped") flips.push({ station: e.station, rank: e.rank, army: e.army });
  }
  return { hands, flips, picks };
}

// Compares what was played with the deal from ``seed``; ``kind``, the variant's deal capability
// (docs/protocol.md, "Capabilities"), says which: "colours" (乱战's hands, one for each colour,
// given with the colour picked), "hands" (三打一's, one for each seat, then the bottom to the
// banker) or "face_down" (翻棋's board). ``events`` (see playedDeal), and for a face-down deal
// the board's ``stations`` and, when known, the whole ``start`` board (pieces with station, rank
// and army). Returns { hands, flips, board } counted as checked, and ``wrong``: what differs.
export async function compareDeal(kind, seed, { events = [], stations = null, start = null } = {}) {
  const played = playedDeal(events);
  const out = { hands: 0, flips: 0, board: 0, wrong: [] };
  const bad = (what) => out.wrong.push(what);
  if (kind === "colours") {
    const deals = new Map();
    for (const h of played.hands) {
      if (!deals.has(h.deal)) deals.set(h.deal, await dealLuanzhan(seed, h.deal));
      const colour = played.picks.get(h.deal)?.[h.seat];
      const expected = colour === undefined ? [] : deals.get(h.deal).handFor(colour);
      out.hands += 1;
      if (!same(h.pieces.map((p) => key(p.rank, p.army)), expected.map(([r, a]) => key(r, a)))) bad({ hand: h.seat, deal: h.deal });
    }
  } else if (kind === "hands") {
    const deals = new Map();
    const banker = events.find((e) => e.kind === "banker")?.seat;
    for (const h of played.hands) {
      if (!deals.has(h.deal)) deals.set(h.deal, await dealSandayi(seed, h.deal));
      const dealt = deals.get(h.deal);
      let expected, got;
      if (h.final) { // every piece in its holder's colour: ranks only
        const extra = h.seat === banker ? dealt.kept : Array(IDLE_LIEUTENANTS).fill(["lieutenant", null]);
        expected = [...dealt.hands[h.seat], ...extra].map(([r]) => key(r, h.seat));
        got = h.pieces.map((p) => key(p.rank, p.army));
      } else {
        expected = dealt.hands[h.seat].map(([r, a]) => key(r, a));
        got = h.pieces.map((p) => key(p.rank, p.army));
      }
      out.hands += 1;
      if (!same(got, expected)) bad({ hand: h.seat, deal: h.deal });
    }
  } else if (kind === "face_down" && stations) {
    const placed = await dealFanqi(seed, stations);
    for (const f of played.flips) {
      const [rank, army] = placed.get(f.station) ?? [];
      out.flips += 1;
      if (rank !== f.rank || army !== f.army) bad({ flip: f.station });
    }
    if (start) {
      const onBoard = new Map(start.map((p) => [p.station, p]));
      for (const [station, [rank, army]] of placed) {
        const p = onBoard.get(station);
        out.board += 1;
        if (!p || p.rank !== rank || p.army !== army) bad({ station });
      }
      if (onBoard.size !== placed.size) bad({ board: onBoard.size });
    }
  }
  return out;
}
