// A player's profile (#user/<name>): title and points per variant, recent games with replays;
// 加好友 / 关注 / 屏蔽 (friends.js); on one's own, those one blocks, the password change and
// 全部设备退出 (log out everywhere).

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { avatar, rankBadge } from "./avatar.js";
import { blockedList, loadRelation, relationButtons } from "./friends.js";
import { errorText, t, variantName } from "./i18n.js";
import { deadLink } from "./log.js";
import { NEW_PASSWORD } from "./login.js";
import { changed, notify, store } from "./store.js";

export async function openProfile(name) {
  store.view = "profile";
  store.profileView = { name, standings: null, games: [] };
  changed();
  const view = store.profileView;
  loadRelation(view);
  try {
    const path = `/api/users/${encodeURIComponent(name)}`;
    const [profile, games] = await Promise.all([store.api.call("GET", path), store.api.call("GET", `${path}/games?limit=20`)]);
    if (store.profileView !== view) return;
    view.standings = profile.standings;
    view.games = games;
  } catch (error) {
    if (error.code === "not_found" && store.profileView === view) view.missing = true; // said on the page
    else notify(errorText(error));
  }
  changed();
}

// Every token of mine revoked: every page and device signed in as me goes back to sign-in.
async function logoutEverywhere() {
  store.leaving = true; // this page's socket closes too, as asked
  await store.api.logout(true).catch(() => {});
  location.hash = "";
  location.reload();
}

// The password change: checked here first (the same rules the server applies, so that a slip
// is said at once), then POST /api/auth/password, whose refusals each have their words. The
// message is kept as a code, not a text, so that it follows a change of language.
async function changePassword(event) {
  event.preventDefault();
  const form = event.target, view = store.profileView;
  const current = form.elements.current.value, next = form.elements.next.value, again = form.elements.again.value;
  const say = (message, field) => {
    view.password = { message, busy: false };
    changed();
    if (field) requestAnimationFrame(() => form.elements[field]?.select());
  };
  if (!current) return say({ key: "passwordNeeded" }, "current");
  if (!next.trim()) return say({ error: { code: "password_blank" } }, "next");
  if (next.length < NEW_PASSWORD) return say({ error: { code: "password_short" } }, "next");
  if (next !== again) return say({ key: "passwordMismatch" }, "again");
  view.password = { busy: true };
  changed();
  try {
    await store.api.changePassword(current, next);
  } catch (error) {
    const field = error.code === "wrong_password" ? "current" : error.code?.startsWith("password_") ? "next" : null;
    return say({ error }, field);
  }
  form.reset();
  say({ key: "passwordChanged", ok: true });
}

function passwordForm() {
  const user = store.user;
  if (user?.guest) {
    return html`<section class="account" id="change-password"><h3>${t("changePassword")}</h3>
      <p id="guest-no-password">${t("guestNoPassword")}</p></section>`;
  }
  const { message, busy } = store.profileView?.password ?? {};
  const text = message && (message.error ? errorText(message.error) : t(message.key));
  return html`<form class="account" id="change-password" novalidate @submit=${changePassword}>
    <h3>${t("changePassword")}</h3>
    <input type="text" name="username" autocomplete="username" .value=${user?.name ?? ""} hidden>
    <label>${t("currentPassword")} <input name="current" type="password" autocomplete="current-password" required></label>
    <label>${t("newPassword")} <input name="next" type="password" autocomplete="new-password" required minlength=${NEW_PASSWORD}></label>
    <label>${t("confirmPassword")} <input name="again" type="password" autocomplete="new-password" required minlength=${NEW_PASSWORD}></label>
    <p class="sub">${t("newPasswordHint")}</p>
    ${text ? html`<p id="password-message" class=${`form-message ${message.ok ? "ok" : "error"}`}
      role=${message.ok ? "status" : "alert"}>${text}</p>` : nothing}
    <div class="buttons"><button id="save-password" class="primary" ?disabled=${busy}>${busy ? t("saving") : t("savePassword")}</button></div>
  </form>`;
}

export function profileView() {
  const view = store.profileView;
  if (view?.missing) return deadLink(t("noSuchPlayer", { name: view.name }));
  const played = (view?.standings ?? []).filter((s) => s.wins + s.losses + s.draws > 0);
  return html`<section class="profile-view" id="profile-view">
    <div class="card">
      <h2>${avatar(view?.name, 40)}${view?.name}</h2>
      ${view ? relationButtons(view) : nothing}
      <table class="standings"><thead><tr><th></th><th>${t("titleOf")}</th><th>${t("points")}</th><th>${t("record")}</th></tr></thead>
        <tbody>${(played.length ? played : view?.standings?.slice(0, 1) ?? []).map((s) => html`<tr data-variant=${s.variant}>
          <td>${variantName(s.variant)}</td><td>${rankBadge(s.title, s.level)}</td><td>${s.points}</td><td>${s.wins}/${s.losses}/${s.draws}</td></tr>`)}</tbody></table>
      <h3>${t("recentGames")}</h3>
      <ul class="games">${view?.games.map((g) => html`<li>
        <a href=${`#replay/${g.game}`} class="replay-link" data-game=${g.game}>${variantName(g.variant)}</a>
        ${t(g.outcome === "draw" ? "drawn" : g.outcome ?? "unscored")} <b>${g.points > 0 ? "+" : ""}${g.points ?? 0}</b>
        <small>${g.finished_at ? new Date(g.finished_at).toLocaleString() : ""}${g.rated ? "" : ` · ${t("unratedShort")}`}</small></li>`)}</ul>
      ${view?.name === store.user?.name ? html`${blockedList(view)}${passwordForm()}` : nothing}
      <div class="buttons">
        <button id="back" @click=${() => history.back()}>${t("goBack")}</button>
        ${view?.name === store.user?.name ? html`<button id="logout-all" @click=${logoutEverywhere}>${t("logoutAll")}</button>` : nothing}
      </div>
    </div>
  </section>`;
}
