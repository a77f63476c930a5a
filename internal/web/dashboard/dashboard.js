// Junction dashboard: shows the node's snapshot (the JSON of this page's
// address) and keeps it live from the "events" Server-Sent Events stream.
// Every value from the node goes in with textContent, never as HTML:
// authids and URIs come from clients.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const state = { realm: "", page: 1 };
  let source = null;
  let data = null;
  let receivedAt = 0;

  function readLocation() {
    const p = new URLSearchParams(location.search);
    state.realm = p.get("realm") || "";
    state.page = Math.max(1, parseInt(p.get("page") || "1", 10) || 1);
  }

  function query() {
    const p = new URLSearchParams();
    if (state.realm) p.set("realm", state.realm);
    if (state.page > 1) p.set("page", String(state.page));
    const s = p.toString();
    return s ? "?" + s : "";
  }

  // show changes the realm or page shown: the address and the stream.
  function show(realm, page) {
    state.realm = realm;
    state.page = page;
    history.replaceState(null, "", location.pathname + query());
    connect();
  }

  function connect() {
    if (source) source.close();
    setStatus("connecting", "connecting");
    source = new EventSource("events" + query());
    source.onmessage = (e) => {
      data = JSON.parse(e.data);
      receivedAt = Date.now();
      setStatus("live", "live");
      render();
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) setStatus("down", "disconnected: reload the page");
      else setStatus("connecting", "reconnecting");
    };
  }

  function setStatus(cls, text) {
    $("status").className = "status " + cls;
    $("status-text").textContent = text;
  }

  // el makes an element with a class and text (or child nodes).
  function el(tag, cls, content) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content instanceof Node) e.append(content);
    else if (content !== undefined && content !== null) e.textContent = String(content);
    return e;
  }

  function duration(secs) {
    secs = Math.max(0, Math.floor(secs));
    const d = Math.floor(secs / 86400), h = Math.floor(secs / 3600) % 24;
    const m = Math.floor(secs / 60) % 60, s = secs % 60;
    const two = (n) => String(n).padStart(2, "0");
    if (d > 0) return d + "d " + h + "h " + two(m) + "m";
    if (h > 0) return h + "h " + two(m) + "m";
    if (m > 0) return m + "m " + two(s) + "s";
    return s + "s";
  }

  // utc writes a time as "2026-01-02 15:04:05 UTC".
  function utc(iso) {
    const t = new Date(iso);
    return isNaN(t) ? "" : t.toISOString().replace("T", " ").slice(0, 19) + " UTC";
  }

  function nodeNow() {
    return new Date(data.now).getTime() + (Date.now() - receivedAt);
  }

  function ago(iso) {
    const t = new Date(iso).getTime();
    if (!t || t < 0) return "";
    return duration((nodeNow() - t) / 1000) + " ago";
  }

  function rate(v) {
    if (v === null || v === undefined) return "–";
    return v >= 10 ? v.toFixed(0) : v.toFixed(2);
  }

  function fill(table, rows, emptyId) {
    table.tBodies[0].replaceChildren(...rows);
    $(emptyId).hidden = rows.length > 0;
    table.hidden = rows.length === 0;
  }

  function more(id, shown, total) {
    $(id).hidden = shown >= total;
    $(id).textContent = "Showing the first " + shown + " of " + total + ".";
  }

  function render() {
    $("version").textContent = data.version || "?";
    $("started").textContent = utc(data.started);
    tick();
    renderTotals();
    renderRealms();
    renderDetail();
    renderBridge();
    renderQueues();
    renderProxies();
  }

  function tick() {
    if (data) $("uptime").textContent = duration(data.uptime_seconds + (Date.now() - receivedAt) / 1000);
  }

  function renderTotals() {
    const sum = (f) => data.realms.reduce((n, r) => n + r[f], 0);
    $("total-sessions").textContent = sum("sessions");
    $("total-realms").textContent = data.realms.length;
    $("total-registrations").textContent = sum("registrations");
    $("total-subscriptions").textContent = sum("subscriptions");
    const rated = data.bridge_services.filter((s) => s.requests_per_second !== null);
    $("total-rate").textContent = rated.length ? rate(rated.reduce((n, s) => n + s.requests_per_second, 0)) : "–";
  }

  function renderRealms() {
    const shown = data.realm ? data.realm.name : "";
    const rows = data.realms.map((r) => {
      const tr = el("tr", r.name === shown ? "selected" : "");
      tr.dataset.realm = r.name;
      tr.append(el("td", "mono", r.name), el("td", "num sessions", r.sessions),
        el("td", "num", r.registrations), el("td", "num", r.subscriptions));
      return tr;
    });
    fill($("realms"), rows, "realms-empty");
  }

  function renderDetail() {
    const d = data.realm;
    $("realm-detail").hidden = !d;
    if (!d) return;
    if (d.page !== state.page) {
      show(state.realm, d.page); // the page asked for is gone
      return;
    }
    $("realm-name").textContent = d.name;
    $("realm-sessions-total").textContent = "(" + d.sessions_total + ")";
    fill($("sessions"), d.sessions.map(sessionRow), "sessions-empty");
    $("page-info").textContent = "Page " + d.page + " of " + d.pages;
    $("prev").disabled = d.page <= 1;
    $("next").disabled = d.page >= d.pages;
    $("registrations-total").textContent = "(" + d.registrations_total + ")";
    fill($("registrations"), d.registrations.map((r) => {
      const tr = el("tr");
      tr.append(el("td", "mono wrap", r.procedure), el("td", "", r.match), el("td", "", r.invoke), el("td", "num", r.callees));
      return tr;
    }), "registrations-empty");
    more("registrations-more", d.registrations.length, d.registrations_total);
    $("subscriptions-total").textContent = "(" + d.subscriptions_total + ")";
    fill($("subscriptions"), d.subscriptions.map((s) => {
      const tr = el("tr");
      tr.append(el("td", "mono wrap", s.topic), el("td", "", s.match), el("td", "num", s.subscribers));
      return tr;
    }), "subscriptions-empty");
    more("subscriptions-more", d.subscriptions.length, d.subscriptions_total);
  }

  function sessionRow(s) {
    const tr = el("tr");
    const transport = s.serializer ? s.transport + " · " + s.serializer : s.transport;
    const peer = s.peer ? el("td", "mono", s.peer) : el("td", "internal", "inside the node");
    const joined = el("td", "", ago(s.joined));
    joined.title = utc(s.joined);
    tr.append(el("td", "mono", s.id), el("td", "wrap", s.authid), el("td", "", s.authrole),
      el("td", "", s.authmethod), el("td", "", transport), peer, joined);
    return tr;
  }

  function renderBridge() {
    fill($("bridge"), data.bridge_services.map((s) => {
      const tr = el("tr");
      tr.append(el("td", "", el("span", "badge", s.type)), el("td", "mono wrap", s.where), el("td", "mono", s.realm),
        el("td", "num", s.requests), el("td", "num", rate(s.requests_per_second)),
        el("td", "num" + (s.errors > 0 ? " bad" : ""), s.errors), el("td", "num", rate(s.errors_per_second)),
        el("td", "num", s.requests > 0 ? millis(s.mean_ms) : "–"));
      return tr;
    }), "bridge-empty");
  }

  function millis(ms) {
    return ms >= 100 ? ms.toFixed(0) + " ms" : ms >= 1 ? ms.toFixed(1) + " ms" : (ms * 1000).toFixed(0) + " µs";
  }

  function renderQueues() {
    fill($("queues"), data.subscriber_queues.map((q) => {
      const tr = el("tr");
      tr.append(el("td", "mono wrap", q.where), el("td", "mono", q.realm),
        el("td", "num" + (q.depth > 0 ? " warn" : ""), q.depth), el("td", "num", q.delivered), el("td", "num", q.retried),
        el("td", "num" + (q.dropped > 0 ? " bad" : ""), q.dropped), el("td", "num" + (q.queue_full > 0 ? " bad" : ""), q.queue_full));
      return tr;
    }), "queues-empty");
  }

  function renderProxies() {
    const workers = data.proxy_workers || [];
    $("proxies").replaceChildren(...workers.map(proxyWorker));
    $("proxies-empty").hidden = workers.length > 0;
  }

  // proxyWorker is one proxy worker: its routes, its sessions by realm,
  // and its joins and refusals by realm and authmethod.
  function proxyWorker(w) {
    const sessions = w.realms.reduce((n, r) => n + r.sessions, 0);
    const title = el("h3", "", el("span", "mono", w.worker));
    title.append(" ", el("span", "count", "(" + sessions + (sessions === 1 ? " session)" : " sessions)")));
    const routes = w.routes.map((r) => row(el("td", "mono", r.realm), el("td", "", r.role),
      el("td", "mono wrap", r.connections.join(", "))));
    const realms = w.realms.map((r) => row(el("td", "mono", r.name), el("td", "num sessions", r.sessions)));
    const joins = w.joins.map((j) => row(el("td", "mono", j.realm), el("td", "", j.authmethod),
      el("td", "num", j.joined), el("td", "num" + (j.refused > 0 ? " bad" : ""), j.refused)));
    const grid = el("div", "split three");
    grid.append(block("Routes", ["Realm", "Role", "Connections"], routes, "routes"),
      block("Sessions", ["Realm", "#Sessions"], realms, "realms"),
      block("Joins", ["Realm", "Authmethod", "#Joined", "#Refused"], joins, "joins"));
    const box = el("div", "proxy");
    box.dataset.worker = w.worker;
    box.append(title, grid);
    return box;
  }

  function row(...cells) {
    const tr = el("tr");
    tr.append(...cells);
    return tr;
  }

  // block is a titled table of rows (a head starting with "#" is a number
  // column), or "None yet." without rows; cls names its table.
  function block(title, heads, rows, cls) {
    const div = el("div");
    div.append(el("h4", "", title));
    if (rows.length === 0) {
      div.append(el("p", "empty", "None yet."));
      return div;
    }
    const head = row(...heads.map((h) => h[0] === "#" ? el("th", "num", h.slice(1)) : el("th", "", h)));
    const body = el("tbody");
    body.append(...rows);
    const table = el("table", cls);
    table.append(el("thead", "", head), body);
    div.append(table);
    return div;
  }

  $("realms").tBodies[0].addEventListener("click", (e) => {
    const tr = e.target.closest("tr");
    if (tr && tr.dataset.realm !== undefined) show(tr.dataset.realm, 1);
  });
  $("prev").addEventListener("click", () => show(state.realm, Math.max(1, state.page - 1)));
  $("next").addEventListener("click", () => show(state.realm, state.page + 1));
  setInterval(tick, 1000);
  readLocation();
  connect();
})();
