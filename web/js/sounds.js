// Sounds, made on the spot with the Web Audio API (no sound files): a move, a fight, your turn,
// low time and the end of a game. The mute switch is remembered in this browser.

let audio = null;

export const muted = () => localStorage.getItem("junqi.mute") === "1";

export function toggleMute() {
  localStorage.setItem("junqi.mute", muted() ? "0" : "1");
}

// Browsers let a page make sound only after the player touched it: the context starts then.
function context() {
  if (!audio) {
    try { audio = new AudioContext(); } catch { return null; }
  }
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}
addEventListener("pointerdown", context, { once: true, capture: true });
addEventListener("keydown", context, { once: true, capture: true });

function tone(freq, seconds, { type = "sine", gain = 0.12, at = 0, slide = null } = {}) {
  const ctx = muted() ? null : audio;
  if (!ctx || ctx.state !== "running") return;
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator(), amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (slide) osc.frequency.exponentialRampToValueAtTime(slide, start + seconds);
  amp.gain.setValueAtTime(gain, start);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + seconds);
  osc.connect(amp).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + seconds + 0.02);
}

export const sound = {
  move: () => tone(520, 0.07, { type: "triangle" }),
  fight: () => { tone(180, 0.25, { type: "sawtooth", gain: 0.1, slide: 60 }); tone(90, 0.3, { gain: 0.15 }); },
  turn: () => { tone(660, 0.12); tone(880, 0.16, { at: 0.12 }); },
  low: () => tone(1000, 0.05, { type: "square", gain: 0.05 }),
  end: (won) => (won ? [523, 659, 784, 1047] : [440, 370, 311]).forEach((f, i) => tone(f, 0.22, { at: i * 0.16 })),
};
