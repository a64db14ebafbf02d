// agentmem memory browser: plain JavaScript, no dependencies. Views are
// chosen by the URL's hash: #/ namespaces, #/ns/NS sessions by date,
// #/ns/NS/s/ID a session in order, #/search a recall.
"use strict";

const main = document.getElementById("main");
const TOKEN_KEY = "agentmem-token";

// el builds an element: el("a", {href: "#"}, "text", child...). Text is
// always set as text, never parsed as HTML.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

class Unauthorized extends Error {}

async function api(path, body) {
  const headers = { "Accept": "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers["Authorization"] = "Bearer " + token;
  const init = { headers };
  if (body !== undefined) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 401) throw new Unauthorized();
  const data = await res.json().catch(() => ({ error: res.status + " " + res.statusText }));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function show(...nodes) {
  main.replaceChildren(...nodes.flat().filter((n) => n !== null && n !== undefined && n !== false));
}

function day(rfc3339) {
  if (!rfc3339) return "";
  const d = new Date(rfc3339);
  return d.toLocaleDateString(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
}

function when(rfc3339) {
  if (!rfc3339) return "";
  return new Date(rfc3339).toLocaleString(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC", timeZoneName: "short" });
}

function who(t) {
  return t.speaker && t.speaker.toLowerCase() !== t.role ? `${t.speaker} (${t.role})` : t.role;
}

function sessionHref(ns, id) {
  return `#/ns/${encodeURIComponent(ns)}/s/${encodeURIComponent(id)}`;
}

// confirmDelete asks before anything is deleted; resolves true for Delete.
// The buttons settle it at once (not the dialog's close event, which comes
// later), so a quick second click cannot be answered by the first dialog.
const dialog = document.getElementById("confirm");
let pending = null;

function settle(ok) {
  if (!pending) return;
  const resolve = pending;
  pending = null;
  if (dialog.open) dialog.close();
  resolve(ok);
}

document.getElementById("confirm-ok").addEventListener("click", () => settle(true));
document.getElementById("confirm-cancel").addEventListener("click", () => settle(false));
dialog.addEventListener("cancel", () => settle(false)); // Escape

function confirmDelete(text) {
  settle(false);
  document.getElementById("confirm-text").textContent = text;
  return new Promise((resolve) => {
    pending = resolve;
    dialog.showModal();
  });
}

// flash is a message for the views rendered in the next few seconds (the
// view that follows a delete, however many times it renders).
let flash = null;

function notice() {
  if (!flash || Date.now() > flash.until) return null;
  return el("div", { class: "notice", role: "status" }, flash.text);
}

let deleting = false; // one confirmation and one delete at a time

async function forget(ns, args, what) {
  if (deleting) return false;
  deleting = true;
  try {
    if (!(await confirmDelete(`Delete ${what} from namespace ${ns}? This cannot be undone.`))) return false;
    return await forgetNow(ns, args);
  } finally {
    deleting = false;
  }
}

async function forgetNow(ns, args) {
  const res = await api("/api/forget", Object.assign({ namespace: ns }, args));
  flash = { text: `Deleted ${res.deleted} ${res.deleted === 1 ? "memory" : "memories"}.`, until: Date.now() + 4000 };
  return true;
}

async function namespacesView() {
  const list = await api("/api/namespaces");
  const rows = list.map((n) => el("tr", {},
    el("td", {}, el("a", { href: `#/ns/${encodeURIComponent(n.name)}` }, n.name)),
    el("td", { class: "num" }, n.memories),
    el("td", { class: "num" }, n.sessions),
    el("td", {}, day(n.first)),
    el("td", {}, day(n.last))));
  show(notice(),
    el("h1", {}, "Namespaces"),
    el("p", { class: "sub" }, "Each namespace is one memory space (a user, an agent). Pick one to read its sessions."),
    list.length === 0 ? el("p", { class: "empty" }, "No memories stored yet.") :
      el("table", { id: "namespaces" },
        el("thead", {}, el("tr", {}, el("th", {}, "Namespace"), el("th", {}, "Memories"), el("th", {}, "Sessions"), el("th", {}, "First session"), el("th", {}, "Last session"))),
        el("tbody", {}, rows)));
}

async function sessionsView(ns, params) {
  const q = new URLSearchParams({ namespace: ns, limit: "50" });
  for (const k of ["after", "before", "cursor"]) if (params.get(k)) q.set(k, params.get(k));
  const page = await api("/api/sessions?" + q);
  const filters = el("form", { class: "filters", onsubmit: (ev) => {
    ev.preventDefault();
    const f = new URLSearchParams();
    for (const k of ["after", "before"]) if (ev.target[k].value) f.set(k, ev.target[k].value);
    location.hash = `#/ns/${encodeURIComponent(ns)}` + (f.toString() ? "?" + f : "");
  } },
    el("label", {}, "On or after", el("input", { type: "date", name: "after", value: params.get("after") || "" })),
    el("label", {}, "On or before", el("input", { type: "date", name: "before", value: params.get("before") || "" })),
    el("button", { type: "submit" }, "Filter"));
  const body = [];
  let last = "";
  for (const s of page.sessions) {
    const d = day(s.date);
    if (d !== last) {
      body.push(el("div", { class: "day" }, d));
      last = d;
    }
    body.push(el("div", { class: "turn session" },
      el("div", { class: "who" }, el("b", {}, el("a", { href: sessionHref(ns, s.id) }, s.id)), `${s.turns} ${s.turns === 1 ? "turn" : "turns"}`, el("span", { class: "spacer" })),
      el("p", {}, s.preview)));
  }
  let more = null;
  if (page.next) {
    const f = new URLSearchParams(params);
    f.set("cursor", page.next);
    more = el("p", { class: "more" }, el("a", { href: `#/ns/${encodeURIComponent(ns)}?` + f }, "Older sessions →"));
  }
  show(notice(),
    el("h1", {}, `Sessions of ${ns}`),
    el("p", { class: "sub" }, `${page.total} sessions, newest first. `, el("a", { href: `#/search?ns=${encodeURIComponent(ns)}` }, "Search this namespace")),
    filters,
    body.length ? el("div", { id: "sessions" }, body) : el("p", { class: "empty" }, "No sessions between those dates."),
    more);
}

async function sessionView(ns, id) {
  const tr = await api(`/api/session?namespace=${encodeURIComponent(ns)}&id=${encodeURIComponent(id)}`);
  const turns = tr.turns.map((t) => el("div", { class: "turn", id: "m-" + t.id },
    el("div", { class: "who" }, el("b", {}, who(t)), t.id, t.timestamp ? when(t.timestamp) : null, el("span", { class: "spacer" }),
      el("button", { class: "small secondary delete-memory", "data-id": t.id, onclick: async () => {
        if (await forget(ns, { ids: [t.id] }, `memory ${t.id}`)) route();
      } }, "Delete")),
    el("p", {}, t.text)));
  show(notice(),
    el("h1", {}, `Session ${tr.session_id}`),
    el("p", { class: "sub" }, el("a", { href: `#/ns/${encodeURIComponent(ns)}` }, ns), ` · ${when(tr.date)} · ${tr.turns.length} turns `,
      el("button", { class: "small danger", id: "delete-session", onclick: async () => {
        if (await forget(ns, { session_id: id }, `session ${id} (${tr.turns.length} memories)`)) location.hash = `#/ns/${encodeURIComponent(ns)}`;
      } }, "Delete session")),
    el("div", { id: "turns" }, turns));
}

async function searchView(params) {
  const namespaces = await api("/api/namespaces");
  const ns = params.get("ns") || (namespaces[0] && namespaces[0].name) || "";
  const q = params.get("q") || "";
  const form = el("form", { class: "search", onsubmit: (ev) => {
    ev.preventDefault();
    const f = new URLSearchParams({ ns: ev.target.ns.value, q: ev.target.q.value });
    location.hash = "#/search?" + f;
  } },
    el("label", {}, "Namespace", el("select", { name: "ns" }, namespaces.map((n) => el("option", { value: n.name, selected: n.name === ns }, n.name)))),
    el("label", {}, "Question", el("input", { name: "q", value: q, required: true, placeholder: "When did I go to the sale?", autofocus: true })),
    el("button", { type: "submit" }, "Recall"));
  if (!q) {
    show(notice(), el("h1", {}, "Search"), el("p", { class: "sub" }, "The same recall an agent runs: BM25 over the text, the names and dates of the question, and vector similarity, fused."), form);
    return;
  }
  const res = await api("/api/recall", { query: q, namespace: ns });
  const hits = res.memories.map((m, i) => el("div", { class: "hit", id: "m-" + m.id },
    el("div", { class: "who" }, el("b", {}, `#${i + 1} ${who(m)}`), el("a", { href: sessionHref(ns, m.session_id) }, `${m.session_id} · ${day(m.session_date)}`), el("span", { class: "spacer" }),
      el("button", { class: "small secondary delete-memory", "data-id": m.id, onclick: async () => {
        if (await forget(ns, { ids: [m.id] }, `memory ${m.id}`)) route();
      } }, "Delete")),
    el("p", {}, m.text),
    el("div", { class: "why" },
      el("span", {}, `score ${m.score.toPrecision(3)}`),
      m.text_rank ? el("span", { class: "hit-side" }, `text rank ${m.text_rank}`) : el("span", {}, "no text match"),
      m.vector_rank ? el("span", { class: "hit-side" }, `vector rank ${m.vector_rank}`) : el("span", {}, "not in the vector ranking"),
      (m.entities || []).map((e) => el("span", { class: "hit-side" }, `entity “${e}”`)),
      (m.dates || []).map((d) => el("span", { class: "hit-side" }, `dated in “${d}”`)))));
  const periods = (res.periods || []).map((p) => `“${p.expression}” (from ${day(p.from)} to before ${day(p.to)})`).join(", ");
  show(notice(), el("h1", {}, "Search"), form,
    el("p", { class: "sub" }, `${res.memories.length} memories of ${ns}, sessions by their best memory, turns in order within one. Each shows why it matched: its fused score, its rank on the text side (BM25 and entities) and on the vector side, and the question's names it holds and time expressions its session is dated in.`),
    periods ? el("p", { class: "sub periods" }, `Time expressions of the question, resolved against today: ${periods}; memories dated in them are boosted, never filtered.`) : null,
    res.pending ? el("p", { class: "sub" }, `${res.pending} memories of ${ns} are still waiting for their vectors: found meanwhile by text alone.`) : null,
    hits.length ? el("div", { id: "hits" }, hits) : el("p", { class: "empty" }, "No stored memories match."));
}

function loginView(again) {
  const form = el("form", { class: "login", onsubmit: (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, ev.target.token.value);
    route();
  } },
    el("h1", {}, "Sign in"),
    el("p", { class: "sub" }, "This server asks for a bearer token: the one it was started with (AGENTMEM_HTTP_TOKEN), your own from its token file (agentmem token add), or an access token of its OAuth authorization server. It is kept in this tab only, until you close it."),
    again ? el("div", { class: "error" }, "That token was refused.") : null,
    el("label", {}, "Token", el("input", { type: "password", name: "token", id: "token", autocomplete: "current-password", required: true })),
    el("button", { type: "submit" }, "Open"));
  show(form);
}

async function route() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query] = hash.split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  document.getElementById("nav-namespaces").classList.toggle("active", parts[0] !== "search");
  document.getElementById("nav-search").classList.toggle("active", parts[0] === "search");
  document.getElementById("logout").hidden = !sessionStorage.getItem(TOKEN_KEY);
  try {
    if (parts[0] === "ns" && parts.length === 2) await sessionsView(parts[1], params);
    else if (parts[0] === "ns" && parts[2] === "s" && parts.length === 4) await sessionView(parts[1], parts[3]);
    else if (parts[0] === "search") await searchView(params);
    else await namespacesView();
  } catch (err) {
    if (err instanceof Unauthorized) {
      const had = !!sessionStorage.getItem(TOKEN_KEY);
      sessionStorage.removeItem(TOKEN_KEY);
      loginView(had);
      return;
    }
    show(el("div", { class: "error", role: "alert" }, err.message), el("p", {}, el("a", { href: "#/" }, "Back to the namespaces")));
  }
  document.body.dataset.view = parts[0] === "ns" ? (parts.length === 4 ? "session" : "sessions") : (parts[0] || "namespaces");
}

document.getElementById("logout").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  route();
});
window.addEventListener("hashchange", route);
route();
