// A player's profile (#user/<name>): title and points per variant, recent games with replays.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { errorText, t, variantName } from "./i18n.js";
import { changed, notify, store } from "./store.js";

export function profileLink(name) {
  return html`<a class="profile-link" href=${`#user/${encodeURIComponent(name)}`}>${name}</a>`;
}

export async function openProfile(name) {
  store.view = "profile";
  store.profileView = { name, standings: null, games: [] };
  changed();
  const view = store.profileView;
  try {
    const path = `/api/users/${encodeURIComponent(name)}`;
    const [profile, games] = await Promise.all([store.api.call("GET", path), store.api.call("GET", `${path}/games?limit=20`)]);
    if (store.profileView !== view) return;
    view.standings = profile.standings;
    view.games = games;
  } catch (error) { notify(errorText(error.code === "not_found" ? { code: "no_user" } : error)); }
  changed();
}

// Every token of mine revoked: every page and device signed in as me goes back to sign-in.
async function logoutEverywhere() {
  await store.api.logout(true).catch(() => {});
  location.hash = "";
  location.reload();
}

export function profileView() {
  const view = store.profileView;
  const played = (view?.standings ?? []).filter((s) => s.wins + s.losses + s.draws > 0);
  return html`<section class="profile-view" id="profile-view">
    <div class="card">
      <h2>${view?.name}</h2>
      <table class="standings"><thead><tr><th></th><th>${t("titleOf")}</th><th>${t("points")}</th><th>${t("record")}</th></tr></thead>
        <tbody>${(played.length ? played : view?.standings?.slice(0, 1) ?? []).map((s) => html`<tr data-variant=${s.variant}>
          <td>${variantName(s.variant)}</td><td>${s.title}</td><td>${s.points}</td><td>${s.wins}/${s.losses}/${s.draws}</td></tr>`)}</tbody></table>
      <h3>${t("recentGames")}</h3>
      <ul class="games">${view?.games.map((g) => html`<li>
        <a href=${`#replay/${g.game}`} class="replay-link" data-game=${g.game}>${variantName(g.variant)}</a>
        ${t(g.outcome === "draw" ? "drawn" : g.outcome ?? "unscored")} <b>${g.points > 0 ? "+" : ""}${g.points ?? 0}</b>
        <small>${g.finished_at ? new Date(g.finished_at).toLocaleString() : ""}${g.rated ? "" : ` · ${t("unratedShort")}`}</small></li>`)}</ul>
      <div class="buttons">
        <button id="back" @click=${() => history.back()}>${t("goBack")}</button>
        ${view?.name === store.user?.name ? html`<button id="logout-all" @click=${logoutEverywhere}>${t("logoutAll")}</button>` : nothing}
      </div>
    </div>
  </section>`;
}
