// Signing in: as a guest at once, or with a name and a password.

import { html } from "../vendor/lit-html/lit-html.js";
import { errorText, t } from "./i18n.js";
import { notify, store } from "./store.js";

// New passwords need 8 characters (server/passwords.py); a login takes the 6 of older accounts.
export const NEW_PASSWORD = 8;
const OLD_PASSWORD = 6;

export function loginView(start) {
  const enter = async (kind, form) => {
    if (form) {
      const name = form.elements.name.value.trim(), password = form.elements.password.value;
      if (name.length < 2 || name.length > 20) { notify(t("signInHint")); return; }
      if (kind === "register" && password.length < NEW_PASSWORD) { notify(errorText({ code: "password_short" })); return; }
      if (password.length < OLD_PASSWORD) { notify(t("signInHint")); return; }
    }
    try {
      store.user = await store.api.enter(kind, form?.elements.name.value, form?.elements.password.value);
      start();
    } catch (error) {
      if (kind === "register" && (error.code === "name_invalid" || (error.code === "validation" && !error.field))) { notify(t("signInHint")); return; } // the name's rule
      // a sign-in's 401 is a wrong name or password; elsewhere it is a login that ended
      const words = kind === "register" && error.code === "conflict" ? { code: "name_taken" }
        : error.code === "unauthorized" ? { code: "wrong_login" } : error;
      notify(errorText(words));
    }
  };
  return html`<section class="login-view" id="login">
    <div class="card">
      <h2>${t("title")}</h2>
      <button id="guest" class="primary big" @click=${() => enter("guest")}>${t("guest")}</button>
      <form id="account" novalidate @submit=${(e) => { e.preventDefault(); enter("login", e.target); }}>
        <label>${t("name")} <input name="name" autocomplete="username" required minlength="2" maxlength="20"></label>
        <label>${t("password")} <input name="password" type="password" autocomplete="current-password" required minlength="6"></label>
        <p class="sub">${t("signInHint")}</p>
        <div class="buttons">
          <button name="login">${t("login")}</button>
          <button name="register" type="button" @click=${(e) => enter("register", e.target.form)}>${t("register")}</button>
        </div>
      </form>
    </div>
  </section>`;
}
