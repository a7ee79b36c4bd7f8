// The kgs evidence inspector: asks /v1/query and shows the one public answer beside its evidence
// status, why it is degraded (conflict with both sides, stale, abstained, partial, judge fallback,
// graph unavailable, or the API's 503), its failure stages and source boundary, citations (opened
// at their exact source offsets in the version quoted, with the document's versions and its
// change-feed events), the context pack by role, the graph
// window, the Cypher ready for Neo4j Browser, recent answers from the records, and the scope's
// health report (contradictions and the other findings, page by page), and, for an answer that
// left a gap, its escalation (draft, then ticket). Its Operations tab charts the answers and
// their latency over a window and lists the top knowledge gaps (escalated through the same
// flow), the most- and never-cited documents and the failures. Every text from the service
// goes into the page as text (textContent), never as markup.
"use strict";

const LABELS = {
  en: {
    answer: "Answer", citations: "Citations", source: "Source", pack: "Context pack",
    graph: "Graph window", excluded: "Excluded candidates", cypher: "Cypher",
    recent: "Recent answers", openBrowser: "Open Neo4j Browser", statusFilter: "Status",
    copy: "Copy for Browser", copied: "Copied", budget: "Budget",
    upload: "Add documents", send: "Upload", scopeNeeded: "Name the scope to add documents to.",
    fields: {
      status: "Answer status", scope: "Scope", evidence: "Evidence", degradation: "Degradation",
      citations: "Citations", graph: "Graph", recovered: "Recovered", replayId: "Replay id",
    },
    values: {
      answered: "answered", partial: "partial", conflict: "conflict", stale: "stale",
      abstained: "abstained", sufficient: "sufficient", borderline: "borderline",
      insufficient: "insufficient", none: "none", partial_coverage: "partial coverage",
      stale_evidence: "stale evidence", insufficient_evidence: "insufficient evidence",
      available: "available", no_anchor: "no anchor", unavailable: "unavailable",
      true: "yes", false: "no", refused: "refused",
    },
    roles: {
      direct_support: "Direct support", parent_context: "Parent section",
      adjacent_context: "Adjacent paragraphs", graph_neighbor_support: "Graph neighbours",
      background: "Background", conflict: "Conflicts",
    },
    decisions: {
      included: "included", fragment_truncated: "truncated", fragment_dropped: "dropped",
      source_window_unavailable: "unavailable",
    },
    directions: { in: "predecessor", out: "successor" },
    health: "Scope health", checkHealth: "Check scope health", more: "More",
    healthScopeNeeded: "Name the scope to check.",
    sections: {
      contradictions: "Contradictions", expiredPages: "Expired pages",
      undescribedPoints: "Undescribed knowledge points", danglingRelations: "Dangling relations",
      nearDuplicates: "Near duplicates", openGaps: "Open gaps",
    },
    findings: {
      checked: (scope, at) => `${scope}, checked ${at}`,
      truncated: "More subjects contradict than the report reads: the ranking covers only the first ones.",
      cited: (n) => `cited by ${n} answers`, expired: "expired", superseded: "superseded",
      validUntil: "valid until", supersededBy: "superseded by",
      declaredIn: (n) => `declared in ${n} documents`, stub: "stub", similarity: "similarity",
      ends: { source: "source", target: "target", both: "both ends" }, asked: (n) => `asked ${n} times`,
    },
    escalate: "Escalate", note: "Note", draftTitle: "Escalation draft", confirm: "Confirm", cancel: "Cancel",
    draftFields: {
      question: "Question", scope: "Scope", answerStatus: "Answer status", missingTerms: "Missing terms",
      reasons: "Reasons", evidence: "Closest evidence", conflicts: "Conflicts", note: "Note", expiresAt: "Expires",
    },
    ticket: (id, status) => `Ticket ${id}: ${status}`,
    ticketStatus: { open: "open", answerable: "answerable", resolved: "resolved" },
    tabEvidence: "Evidence", tabOps: "Operations", opsWindow: "Window", opsBucket: "Bucket",
    last24h: "last 24 h", last7d: "last 7 days", last30d: "last 30 days", bucketHour: "hour",
    bucketDay: "day", refresh: "Refresh", answersOverTime: "Answers per status",
    latencyByStage: "Latency by stage (ms)", gaps: "Top knowledge gaps", gapQuestion: "Question",
    gapScope: "Scope", gapAsked: "Asked", gapStatuses: "Statuses", gapLastAsked: "Last asked",
    gapTickets: "Open tickets", documents: "Documents", topCited: "Most-cited documents",
    neverCited: "Never-cited documents", failures: "Failures", failureStage: "Stage",
    failureType: "Error type", failureCount: "Failures", failureLast: "Last",
    recentFailures: "Recent failures",
    ops: {
      range: (scope, since, until, bucket) => `${scope || "every readable scope"} · ${since} – ${until} UTC · by ${bucket}`,
      answers: (n) => `${n} answers`, abstentionRate: "abstention rate", conflictRate: "conflict rate",
      tickets: (opened, closed) => `tickets opened ${opened}, closed ${closed}`,
      alsoAsked: "also asked as", noGaps: "No gaps in this window.", none: "none",
      citations: (n) => `cited by ${n} answers`, failuresTotal: (n) => `${n} failures in the window`,
    },
    states: {  // [badge, what it means]; the reasons under it are the API's own words
      conflict: ["Conflict", "The sources disagree: the answer states both sides."],
      stale: ["Stale", "A cited page is expired or superseded."],
      changed: ["Stale", "A cited document changed since this answer."],
      abstained: ["Abstained", "No answer: the evidence found does not answer the question."],
      partial: ["Partial", "Partly answered: some of the question is not covered."],
      judge: ["Judge fallback", "The LLM judge failed; the deterministic review decided."],
      graph: ["Graph unavailable", "Graph reads failed: answered from the documents' context only."],
      unavailable: ["Unavailable", "The service cannot answer now: the knowledge graph (Neo4j) or the answer workers cannot be reached."],
    },
    stateFields: {
      reasons: "Reasons", missingTerms: "Missing terms", missingValue: "Not stated", sides: "Sides",
      stalePages: "Stale pages", documents: "Changed documents", judge: "Judge", graph: "Graph",
      detail: "The service says", retry: "Retry", traceId: "Trace id",
    },
    staleDocument: (path, then, now) => (now == null ? `${path}: version ${then} cited, removed since`
      : `${path}: version ${then} cited, now version ${now}`),
    retryAfter: (s) => `in ${s} s`, networkDown: "the service did not answer (network error)",
    failureStages: "Failure stages", boundary: "Source boundary", documentsRead: "documents read",
    stages: {
      parsing_source: "parsing the source", indexing: "indexing", retrieval: "retrieval",
      reranking: "reranking", context_assembly: "context assembly", graph_evidence: "graph evidence",
      generation: "generation", citation_verification: "citation verification",
      permission_scope: "permission scope",
    },
    boundaries: { span: "span", section: "section", window: "window", full_document: "full document", none: "none" },
    versions: "Versions", changes: "Changes of this document",
    history: {
      quoted: "quoted by this citation", head: "head", cited: (n) => `cited by ${n} answers`,
      paragraphs: (n) => `${n} paragraphs`, none: "none",
      bound: (n, scope) => `from the newest ${n} events of scope ${scope}`,
    },
    changeKinds: {
      added: "added", updated: "updated", restored: "restored", withdrawn: "withdrawn",
      purged: "purged", conflictResolved: "conflict resolved",
    },
  },
  zh: {
    answer: "回答", citations: "引用", source: "出处", pack: "上下文包", graph: "图窗口",
    excluded: "排除的候选", cypher: "Cypher", recent: "最近的回答",
    openBrowser: "打开 Neo4j Browser", statusFilter: "状态", copy: "复制到 Browser",
    copied: "已复制", budget: "预算",
    upload: "添加文档", send: "上传", scopeNeeded: "请填写要添加文档的范围。",
    fields: {
      status: "回答状态", scope: "范围", evidence: "证据", degradation: "降级",
      citations: "引用数", graph: "图", recovered: "已恢复", replayId: "重放 ID",
    },
    values: {
      answered: "已回答", partial: "部分回答", conflict: "存在冲突", stale: "证据过期",
      abstained: "拒答", sufficient: "充分", borderline: "临界", insufficient: "不足",
      none: "无", partial_coverage: "部分覆盖", stale_evidence: "证据过期",
      insufficient_evidence: "证据不足", available: "可用", no_anchor: "无锚点",
      unavailable: "不可用", true: "是", false: "否", refused: "已拒绝",
    },
    roles: {
      direct_support: "直接证据", parent_context: "所在章节", adjacent_context: "相邻段落",
      graph_neighbor_support: "图邻居", background: "背景", conflict: "冲突",
    },
    decisions: {
      included: "已纳入", fragment_truncated: "已截断", fragment_dropped: "已丢弃",
      source_window_unavailable: "不可用",
    },
    directions: { in: "前驱", out: "后继" },
    health: "范围健康", checkHealth: "检查范围健康", more: "更多",
    healthScopeNeeded: "请填写要检查的范围。",
    sections: {
      contradictions: "矛盾", expiredPages: "过期页面", undescribedPoints: "未描述的知识点",
      danglingRelations: "悬空关系", nearDuplicates: "近似重复", openGaps: "未解决的缺口",
    },
    findings: {
      checked: (scope, at) => `${scope}，检查于 ${at}`,
      truncated: "相互矛盾的主题多于报告读取的上限：排序只覆盖前面的部分。",
      cited: (n) => `被 ${n} 个回答引用`, expired: "已过期", superseded: "已被取代",
      validUntil: "有效期至", supersededBy: "取代者",
      declaredIn: (n) => `在 ${n} 个文档中声明`, stub: "占位", similarity: "相似度",
      ends: { source: "起点", target: "终点", both: "两端" }, asked: (n) => `被问 ${n} 次`,
    },
    escalate: "上报", note: "备注", draftTitle: "上报草稿", confirm: "确认", cancel: "取消",
    draftFields: {
      question: "问题", scope: "范围", answerStatus: "回答状态", missingTerms: "缺少的关键词",
      reasons: "原因", evidence: "最接近的证据", conflicts: "冲突", note: "备注", expiresAt: "过期时间",
    },
    ticket: (id, status) => `工单 ${id}：${status}`,
    ticketStatus: { open: "待处理", answerable: "可回答", resolved: "已解决" },
    tabEvidence: "证据", tabOps: "运维", opsWindow: "时间范围", opsBucket: "粒度",
    last24h: "最近 24 小时", last7d: "最近 7 天", last30d: "最近 30 天", bucketHour: "按小时",
    bucketDay: "按天", refresh: "刷新", answersOverTime: "各状态的回答数",
    latencyByStage: "各阶段延迟（毫秒）", gaps: "主要知识缺口", gapQuestion: "问题",
    gapScope: "范围", gapAsked: "提问次数", gapStatuses: "状态", gapLastAsked: "最近提问",
    gapTickets: "未关闭的工单", documents: "文档", topCited: "引用最多的文档",
    neverCited: "从未被引用的文档", failures: "失败", failureStage: "阶段",
    failureType: "错误类型", failureCount: "次数", failureLast: "最近一次",
    recentFailures: "最近的失败",
    ops: {
      range: (scope, since, until, bucket) => `${scope || "所有可读范围"} · ${since} 至 ${until}（UTC）· ${bucket === "day" ? "按天" : "按小时"}`,
      answers: (n) => `${n} 个回答`, abstentionRate: "拒答率", conflictRate: "冲突率",
      tickets: (opened, closed) => `新开工单 ${opened}，关闭 ${closed}`,
      alsoAsked: "其他问法", noGaps: "此时间范围内没有缺口。", none: "无",
      citations: (n) => `被 ${n} 个回答引用`, failuresTotal: (n) => `时间范围内失败 ${n} 次`,
    },
    states: {
      conflict: ["存在冲突", "来源相互矛盾：回答列出了双方的说法。"],
      stale: ["证据过期", "引用的页面已过期或已被取代。"],
      changed: ["证据过期", "此回答之后，引用的文档已更改。"],
      abstained: ["拒答", "未回答：找到的证据不能回答该问题。"],
      partial: ["部分回答", "只回答了一部分：问题的某些部分没有被覆盖。"],
      judge: ["评审回退", "LLM 评审失败，由确定性评审决定。"],
      graph: ["图不可用", "图读取失败：仅根据文档上下文回答。"],
      unavailable: ["服务不可用", "服务暂时无法回答：无法访问知识图谱（Neo4j）或回答进程。"],
    },
    stateFields: {
      reasons: "原因", missingTerms: "缺少的关键词", missingValue: "未说明", sides: "双方说法",
      stalePages: "过期页面", documents: "已更改的文档", judge: "评审", graph: "图",
      detail: "服务返回", retry: "重试", traceId: "追踪 ID",
    },
    staleDocument: (path, then, now) => (now == null ? `${path}：引用的是第 ${then} 版，此后已删除`
      : `${path}：引用的是第 ${then} 版，现为第 ${now} 版`),
    retryAfter: (s) => `${s} 秒后`, networkDown: "服务没有响应（网络错误）",
    failureStages: "失败阶段", boundary: "来源边界", documentsRead: "读取的文档",
    stages: {
      parsing_source: "源解析", indexing: "索引", retrieval: "检索", reranking: "重排序",
      context_assembly: "上下文组装", graph_evidence: "图证据", generation: "生成",
      citation_verification: "引用核验", permission_scope: "权限范围",
    },
    boundaries: { span: "片段", section: "章节", window: "局部窗口", full_document: "全文", none: "无" },
    versions: "版本", changes: "此文档的变更",
    history: {
      quoted: "本引用所引的版本", head: "当前版本", cited: (n) => `被 ${n} 个回答引用`,
      paragraphs: (n) => `${n} 个段落`, none: "无",
      bound: (n, scope) => `取自范围 ${scope} 最新的 ${n} 个事件`,
    },
    changeKinds: {
      added: "新增", updated: "更新", restored: "恢复", withdrawn: "撤回", purged: "清除",
      conflictResolved: "冲突已解决",
    },
  },
};
const STATUS_FIELDS = ["scope", "evidence", "degradation", "citations", "graph", "recovered", "replayId"];
const $ = (id) => document.getElementById(id);
const state = {
  response: null, lang: "en", health: null, escalation: null, view: "evidence", ops: null, opsRequest: null,
  unavailable: null, citation: null,
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function language(question) {
  const chosen = $("lang").value;
  if (chosen !== "auto") return chosen;
  return /[\u3400-\u9fff\uf900-\ufaff]/.test(question || "") ? "zh" : "en";
}

function labels() { return LABELS[state.lang]; }
function value(v) { return labels().values[String(v)] ?? String(v); }

// A failed request throws an Error with the HTTP `status` (0: no answer at all), the problem
// body (RFC 9457: detail, traceId) and the Retry-After the service suggested.
async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json", ...(options.headers || {}) };
  const key = $("key").value.trim();
  if (key) headers["X-API-Key"] = key;
  let response;
  try { response = await fetch(path, { ...options, headers }); }
  catch { throw Object.assign(new Error(labels().networkDown), { status: 0, problem: {} }); }
  const body = await response.json().catch(() => null);  // a proxy's error page is not JSON
  if (!response.ok) {
    throw Object.assign(new Error(body?.detail || body?.title || `${response.status} ${response.statusText}`),
      { status: response.status, problem: body || {}, retryAfter: response.headers.get("Retry-After") });
  }
  if (body === null) throw new Error(`${path}: the response is not JSON`);
  return body;
}

function showError(error) {
  $("error").hidden = !error;
  $("error").textContent = error ? String(error.message || error) : "";
}

function relabel() {
  for (const node of document.querySelectorAll("[data-label]")) {
    const text = labels()[node.dataset.label];
    if (text && node.tagName !== "LABEL") node.textContent = text;
  }
  document.documentElement.lang = state.lang === "zh" ? "zh" : "en";
}

function renderStatus(response) {
  const status = response.evidenceStatus || {};
  const rows = [["status", response.status], ...STATUS_FIELDS.map((f) => [f, status[f]])];
  $("status").replaceChildren(...rows.flatMap(([field, v]) => [
    el("dt", { text: labels().fields[field] }),
    el("dd", { "data-field": field, "data-value": String(v), text: field === "replayId" || field === "scope" || field === "citations" ? String(v) : value(v) }),
  ]));
}

function renderCitations(response) {
  $("source").hidden = true;
  state.citation = null;
  $("citations").replaceChildren(...(response.citations || []).map((c, i) => el("li", {},
    el("button", { type: "button", class: "citation", "data-index": String(i), text: `${c.place || `${c.path} ${c.startLine}`}: ${c.quote}`, onclick: () => openCitation(c) }))));
}

// The version the citation quotes (a newer head may no longer hold the quote); once retention
// released it (410), the head.
async function citedDocument(citation) {
  const path = `/v1/documents/${encodeURIComponent(citation.documentId)}`;
  if (citation.documentVersion == null) return api(path);
  try { return await api(`${path}?version=${citation.documentVersion}`); }
  catch (error) { if (error.status === 410) return api(path); throw error; }
}

async function openCitation(citation) {
  const opened = { citation };
  state.citation = opened;  // another click meanwhile: its reads win
  try {
    const document_ = await citedDocument(citation);
    if (state.citation !== opened) return;
    const paragraph = document_.paragraphs.find(
      (p) => p.startOffset <= citation.startOffset && citation.endOffset <= p.endOffset);
    if (!paragraph) throw new Error("the cited paragraph is no longer in this document");
    // Offsets count code points; a JS string indexes UTF-16 units (an emoji is two of them).
    const units = (count) => Array.from(paragraph.text).slice(0, count).join("").length;
    const start = units(citation.startOffset - paragraph.startOffset);
    const end = units(citation.endOffset - paragraph.startOffset);
    $("source-path").textContent = `${document_.path} v${document_.version ?? "?"} (${citation.startOffset}–${citation.endOffset})`;
    $("source-text").replaceChildren(
      paragraph.text.slice(0, start),
      el("mark", { id: "highlight", text: paragraph.text.slice(start, end) }),
      paragraph.text.slice(end));
    $("versions").replaceChildren();
    $("changes").replaceChildren();
    $("changes-bound").textContent = "";
    $("source").hidden = false;
    $("highlight").scrollIntoView({ block: "nearest" });
    showError(null);
    await renderHistory(opened);
  } catch (error) { if (state.citation === opened) showError(error); }
}

// The cited document's retained versions (GET /v1/documents/{id}/versions), the one the
// citation quotes marked, and its events among the scope's newest change-feed page.
const FEED_PAGE = 100;
async function renderHistory(opened) {
  const { citation } = opened;
  const scope = citation.scope || state.response?.evidenceStatus?.scope;
  const [history, events] = await Promise.all([
    api(`/v1/documents/${encodeURIComponent(citation.documentId)}/versions`), newestChanges(scope)]);
  if (state.citation !== opened) return;
  const h = labels().history;
  $("versions").replaceChildren(...history.items.map((v) => {
    const quoted = v.version === citation.documentVersion;
    return el("li", { "data-version": String(v.version), "data-quoted": String(quoted), "data-head": String(v.head),
      class: quoted ? "quoted" : "",
      text: [`v${v.version}`, minute(v.createdAt), h.paragraphs(v.paragraphs), h.cited(v.citedBy),
        v.head && h.head, quoted && h.quoted].filter(Boolean).join(" · ") });
  }));
  const mine = events.filter((e) => e.documentId === citation.documentId).reverse();  // newest first
  const versions = (e) => [e.oldVersion, e.newVersion].map((v) => (v == null ? "–" : `v${v}`)).join(" → ");
  $("changes-bound").textContent = h.bound(events.length, scope);
  $("changes").replaceChildren(...(mine.length
    ? mine.map((e) => el("li", { "data-seq": String(e.seq), "data-kind": e.kind,
      text: `#${e.seq} · ${labels().changeKinds[e.kind] || e.kind} · ${versions(e)} · ${minute(e.at)}` }))
    : [el("li", { class: "none", text: h.none })]));
}

// The feed reads forward from a cursor: its end is found by doubling the cursor past it, then
// halving back (a few one-event reads), and only the page before the end is read.
async function newestChanges(scope) {
  const page = (after, limit) => api(`/v1/changes?${new URLSearchParams({ scope, after: String(after), limit: String(limit) })}`);
  const after = async (seq) => (await page(seq, 1)).items.length > 0;  // an event after seq?
  const first = await page(0, FEED_PAGE);
  if (!first.items.length || !(await after(first.last))) return first.items;
  let [low, high] = [first.last, first.last * 2];  // events after low; none after high, once found
  while (await after(high)) [low, high] = [high, high * 2];
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await after(middle)) low = middle; else high = middle;
  }
  return (await page(Math.max(0, high - FEED_PAGE), FEED_PAGE)).items;  // high: the newest event
}

// Why an answer is degraded, one panel per state, each with the API's own reasons: a conflict
// with both sides, stale evidence (a page expired or superseded when asked, or a cited document
// changed since: the record's staleReason), an abstention or a partial answer with the
// sufficiency review's reasons, the LLM judge's failure, graph reads that failed.
function statePanel(name, ...details) {
  const [badge, meaning] = labels().states[name];
  return el("div", { class: `state state-${name}`, "data-state": name },
    el("p", { class: "state-head" }, el("span", { class: "badge", text: badge }), " ", el("span", { class: "meaning", text: meaning })),
    ...details);
}

function stateField(name, ...content) {
  return el("div", { class: "reason", "data-field": name },
    el("span", { class: "meta", text: `${labels().stateFields[name]}: ` }), ...content);
}

const textList = (items) => el("ul", {}, ...items.map((text) => el("li", { text })));

// A conflict fragment's text names every side as `PATH (line N) gives VALUE ("QUOTE")`
// (service/pipeline/conflicts/wording.py); its fields place only the first side, so each side is
// read from that text, and a side it cannot read shows its value only (the text is shown too).
function conflictSides(fragment) {
  const text = fragment.text || "";
  return (fragment.conflictValues || []).map((value) => {
    const marker = ` gives ${value} ("`;
    const at = text.indexOf(marker);
    const place = at < 0 ? null : /(\S+) \(line (\d+)\)$/.exec(text.slice(0, at));
    if (!place) return { value };
    const start = at + marker.length;
    const end = /"\)(?:, while |, |\.$)/.exec(text.slice(start));
    return { value, path: place[1], line: Number(place[2]), quote: text.slice(start, end ? start + end.index : text.length) };
  });
}

function conflictItem(fragment) {
  const sides = conflictSides(fragment);
  return el("div", { class: "conflict", "data-fragment": fragment.id },
    el("p", { class: "values", text: (fragment.conflictValues || []).join(" ≠ ") }),
    el("ul", { class: "sides" }, ...sides.map((side) => el("li", { class: "side", "data-value": side.value },
      el("div", { class: "meta", text: side.path ? `${side.value} · ${side.path}:${side.line}` : side.value }),
      ...(side.quote ? [el("blockquote", { text: side.quote })] : [])))),
    ...(sides.every((side) => side.path) ? [] : [el("p", { class: "statement", text: fragment.text })]));
}

function degradedStates(response) {
  const trace = response.trace || {};
  const review = trace.ragSufficiencyReview || {};
  const status = response.evidenceStatus || {};
  const reasons = review.reasons || [];
  const missing = () => (review.missingTerms?.length ? [stateField("missingTerms", review.missingTerms.join(", "))] : []);
  const panels = [];
  if (response.status === "conflict" || status.degradation === "conflict") {
    const conflicts = (trace.ragContextPack?.fragments || []).filter((f) => f.role === "conflict");
    panels.push(statePanel("conflict", stateField("reasons", textList(reasons.filter((r) => r.startsWith("conflicting_evidence")))),
      stateField("sides", ...conflicts.map(conflictItem))));
  }
  if (response.status === "stale" || status.degradation === "stale_evidence") {
    panels.push(statePanel("stale", stateField("reasons", textList(reasons.filter((r) => r.startsWith("stale_evidence")))),
      ...(review.stale?.length ? [stateField("stalePages", review.stale.join(", "))] : [])));
  }
  const record = response.record;
  if (record?.stale) {
    const changed = (record.documents || []).filter((d) => d.currentContentHash !== d.contentHash);
    panels.push(statePanel("changed", stateField("reasons", textList([record.staleReason || ""])),
      stateField("documents", textList(changed.map((d) => labels().staleDocument(d.path, d.version, d.currentContentHash == null ? null : d.currentVersion))))));
  }
  if (response.status === "abstained") panels.push(statePanel("abstained", stateField("reasons", textList(reasons)), ...missing()));
  if (response.status === "partial") {
    const typed = trace.answerType || {};
    panels.push(statePanel("partial", stateField("reasons", textList(reasons)), ...missing(),
      ...(typed.outcome === "missing" && typed.noun ? [stateField("missingValue", typed.noun)] : [])));
  }
  if (review.judge?.failure) panels.push(statePanel("judge", stateField("judge", review.judge.failure)));
  if (status.graph === "unavailable") {
    const graph = (trace.ragFailureClassifications || []).find((c) => c.stage === "graph_evidence");
    panels.push(statePanel("graph", stateField("graph", trace.graphContext?.error || graph?.reason || "")));
  }
  return panels;
}

// The failure stages the trace classified (ragFailureClassifications), each with its reason and
// the ids or gate names to look up, and how far the sources were read (the pack's widest
// source boundary, and the documents read).
function renderDiagnosis(trace) {
  const failures = trace.ragFailureClassifications || [];
  const pack = trace.ragContextPack || {};
  $("failure-stages").replaceChildren(...(failures.length ? failures.map((c) => el("li", { "data-stage": c.stage },
    el("strong", { text: labels().stages[c.stage] || c.stage }), `: ${c.reason}`,
    ...(c.evidence?.length ? [el("span", { class: "meta", text: ` (${c.evidence.join(", ")})` })] : [])))
    : [el("li", { class: "none", text: labels().history.none })]));
  const boundary = pack.sourceBoundary || "none";
  $("boundary").dataset.boundary = boundary;
  $("boundary").textContent = `${labels().boundary}: ${labels().boundaries[boundary] || boundary}`
    + ` · ${labels().documentsRead}: ${(pack.documentsRead || []).join(", ") || labels().history.none}`;
  $("diagnosis").hidden = !trace.ragContextPack && !failures.length;
}

// The service could not answer (503: Neo4j away, the answer workers restarting; 0: no answer at
// all): no answer is shown, only this state, with the problem's detail and trace id.
function showUnavailable(error) {
  state.response = null;
  state.unavailable = { detail: error.message, retryAfter: error.retryAfter, traceId: error.problem?.traceId, status: error.status };
  renderUnavailable();
}

function renderUnavailable() {
  const u = state.unavailable;
  clearAnswer();
  $("states").replaceChildren(statePanel("unavailable", stateField("detail", u.status ? `${u.status} · ${u.detail}` : u.detail),
    ...(u.retryAfter ? [stateField("retry", labels().retryAfter(u.retryAfter))] : []),
    ...(u.traceId ? [stateField("traceId", u.traceId)] : [])));
}

function clearAnswer() {
  $("answer").textContent = "";
  delete $("answer").dataset.traceId;
  for (const id of ["states", "status", "citations", "failure-stages", "budget", "pack", "neighbours", "excluded", "cypher", "graph"]) {
    $(id).replaceChildren();
  }
  $("diagnosis").hidden = true;
  $("source").hidden = true;
  state.citation = null;
}

function renderPack(trace) {
  const pack = trace.ragContextPack || {};
  const decisions = new Map((pack.sourceDecisions || []).map((d) => [d.fragmentId, d]));
  const budget = pack.budget || {};
  $("budget").textContent = `${labels().budget}: ${pack.totalChars ?? 0} / ${budget.totalChars ?? "?"} chars, ${(pack.fragments || []).length} / ${budget.fragments ?? "?"} fragments (${budget.profile ?? ""})`;
  const groups = new Map();
  for (const fragment of pack.fragments || []) {
    if (!groups.has(fragment.role)) groups.set(fragment.role, []);
    groups.get(fragment.role).push({ fragment, decision: decisions.get(fragment.id) || { status: "included", reason: "" } });
  }
  for (const decision of pack.sourceDecisions || []) {  // dropped or unavailable: no fragment
    if (decision.status === "included" || (pack.fragments || []).some((f) => f.id === decision.fragmentId)) continue;
    if (!groups.has(decision.role)) groups.set(decision.role, []);
    groups.get(decision.role).push({ fragment: null, decision });
  }
  $("pack").replaceChildren(...[...groups].map(([role, items]) => el("div", { class: "role", "data-role": role },
    el("h3", { text: labels().roles[role] || role }),
    ...items.map(({ fragment, decision }) => el("div", { class: `fragment decision-${decision.status}`, "data-decision": decision.status },
      el("div", { class: "meta", text: `${labels().decisions[decision.status] || decision.status} · ${(fragment || decision).path || ""}${fragment?.sourceBoundary ? ` · ${labels().boundaries[fragment.sourceBoundary] || fragment.sourceBoundary}` : ""}${decision.reason ? " · " + decision.reason : ""}` }),
      el("div", { text: fragment ? fragment.text : "" }))))));
}

function renderGraph(trace) {
  const graph = trace.graphContext || {};
  const anchor = graph.anchor || {};
  const neighbours = [...(graph.predecessors || []), ...(graph.successors || [])];
  $("neighbours").replaceChildren(...neighbours.map((n) => el("li", { "data-neighbour": n.id,
    text: `${labels().directions[n.direction] || n.direction}: ${n.title} (${n.relation}, ${Number(n.confidence).toFixed(2)}) — ${n.reason}` })));
  const excluded = (graph.diagnostics || {}).excluded || [];
  $("excluded").replaceChildren(...excluded.map((x) => el("li", { "data-excluded": x.id, text: `${x.title} (${x.relation}): ${x.reason}` })));
  if (typeof cytoscape !== "function" || !anchor.id) { $("graph").replaceChildren(); return; }
  const elements = [{ data: { id: anchor.id, label: anchor.title || anchor.id, kind: "anchor" } }];
  for (const n of neighbours) {
    if (n.id === anchor.id) continue;
    elements.push({ data: { id: n.id, label: n.title || n.id, kind: n.direction } });
    const [source, target] = n.direction === "in" ? [n.id, anchor.id] : [anchor.id, n.id];
    elements.push({ data: { id: `${source}->${target}:${n.relation}`, source, target, label: n.relation } });
  }
  cytoscape({
    container: $("graph"), elements, layout: { name: "breadthfirst", directed: true, padding: 12 },
    userZoomingEnabled: false,
    style: [
      { selector: "node", style: { label: "data(label)", "font-size": 10, "background-color": "#7a9cc6", "text-wrap": "wrap", "text-max-width": 110 } },
      { selector: "node[kind = 'anchor']", style: { "background-color": "#e0a040" } },
      { selector: "edge", style: { label: "data(label)", "font-size": 8, "curve-style": "bezier", "target-arrow-shape": "triangle", width: 1.5 } },
    ],
  });
}

async function renderCypher(traceId) {
  const statements = await api(`/v1/traces/${traceId}/cypher`);
  $("cypher").replaceChildren(...statements.map((s, i) => {
    const button = el("button", { type: "button", class: "copy", "data-index": String(i), text: labels().copy });
    button.addEventListener("click", () => copy(s.browserText, button));
    return el("li", { "data-statement": s.statement },
      el("strong", { text: `${s.statement}` }), ` ${s.rows} rows, ${s.elapsedMs} ms `, button,
      el("pre", { text: s.browserText }));
  }));
}

async function copy(text, button) {
  try { await navigator.clipboard.writeText(text); }
  catch {  // no clipboard permission: copy through a selection
    const area = el("textarea", { "aria-hidden": "true" });
    area.value = text; document.body.append(area); area.select();
    document.execCommand("copy"); area.remove();
  }
  button.textContent = labels().copied;
  setTimeout(() => { button.textContent = labels().copy; }, 1500);
}

async function show(response) {
  state.response = response;
  state.unavailable = null;
  state.lang = language(response.trace?.plan?.query || $("question").value);
  relabel();
  $("answer").textContent = response.answer;
  $("answer").dataset.traceId = response.traceId;
  $("states").replaceChildren(...degradedStates(response));
  renderStatus(response);
  renderDiagnosis(response.trace || {});
  renderCitations(response);
  renderPack(response.trace || {});
  renderGraph(response.trace || {});
  offerEscalation(response);
  await renderCypher(response.traceId);
}

async function ask(event) {
  event.preventDefault();
  clearEscalation();  // a new question: the last answer's (or gap's) draft or ticket goes with it
  showView("evidence");
  let response;
  try {
    // No scope: the API answers from the best of the scopes the key may read (the trace's
    // scopeChoice says which), as for any client.
    const scope = $("scope").value.trim();
    const body = scope ? { query: $("question").value, scope } : { query: $("question").value };
    response = await api("/v1/query", { method: "POST", body: JSON.stringify(body) });
  } catch (error) {
    state.lang = language($("question").value);
    relabel();
    if (error.status === 503 || error.status === 0) { showUnavailable(error); showError(null); } else showError(error);
    return;
  }
  try {
    await show(response);
    await loadRecent();
    showError(null);
  } catch (error) { showError(error); }
}

async function loadRecent(event) {
  if (event) event.preventDefault();
  const params = new URLSearchParams({ limit: "20" });
  if ($("scope").value) params.set("scope", $("scope").value);
  if ($("recent-status").value) params.set("status", $("recent-status").value);
  if ($("recent-q").value) params.set("q", $("recent-q").value);
  try {
    const page = await api(`/v1/answers?${params}`);
    $("recent").replaceChildren(...page.items.map((item) => el("li", { "data-trace": item.traceId },
      el("button", { type: "button", text: `${item.createdAt} · ${value(item.status)}${item.stale ? " · " + value("stale") : ""} · ${item.query}`, onclick: () => openRecord(item.traceId) }))));
  } catch (error) { showError(error); }
}

// Each file is its own POST /v1/documents into the scope field's scope, so one refused file
// (encrypted PDF, wrong extension) does not stop the others; each line says what happened.
async function upload(event) {
  event.preventDefault();
  const key = $("key").value.trim();
  if (!$("scope").value.trim()) {
    $("uploads").replaceChildren(el("li", { class: "refused", text: labels().scopeNeeded }));
    return;
  }
  const lines = [];
  for (const file of $("upload-files").files) {
    const form = new FormData();
    form.append("scope", $("scope").value);
    form.append("file", file, file.name);
    const response = await fetch("/v1/documents", { method: "POST", body: form, headers: key ? { "X-API-Key": key } : {} });
    const body = await response.json();
    const errors = (body.errors || []).map((e) => e.message).join("; ");
    const warnings = (body.warnings || []).map((w) => w.message).join("; ");
    const text = response.ok
      ? `${file.name}: ${body.status}, version ${body.version}, ${body.paragraphs} paragraphs${warnings ? " (" + warnings + ")" : ""}`
      : `${file.name}: ${body.detail || body.title}${errors ? ": " + errors : ""}`;
    lines.push(el("li", { class: response.ok ? "uploaded" : "refused", text }));
    $("uploads").replaceChildren(...lines);
  }
}

async function openRecord(traceId) {
  try {
    const stored = await api(`/v1/traces/${traceId}`);
    const bundle = await api(`/v1/answers/${traceId}/export`);
    // The record says whether a document it cited changed since (stale, staleReason, and each
    // document's version then and now).
    const record = { stale: bundle.stale, staleReason: bundle.staleReason, documents: bundle.documents };
    await show({ answer: bundle.answer, status: bundle.status, evidenceStatus: bundle.evidenceStatus, citations: bundle.citations, traceId, trace: stored.trace, record });
  } catch (error) { showError(error); }
}

// The scope's health report (GET /v1/scopes/{scope}/health, docs/health.md): the first page of
// every section; "More" reads the section's next page after its cursor (`nextAfter`) and
// appends it. Quotes and titles come from the pages, so they go in as text like everything else.
const HEALTH_SECTIONS = ["contradictions", "expiredPages", "undescribedPoints", "danglingRelations", "nearDuplicates", "openGaps"];
const place = (path, line) => (line ? `${path}:${line}` : String(path ?? ""));
const HEALTH_ITEMS = {
  contradictions: (c, f) => el("li", { class: "contradiction", "data-key": c.key },
    el("strong", { class: "subject", text: `${c.subject}${c.conditions.length ? ` [${c.conditions.join(", ")}]` : ""}` }),
    el("span", { class: "values", text: ` ${c.values.join(" ≠ ")}` }),
    el("span", { class: "meta", text: ` · ${f.cited(c.cited)}` }),
    el("ul", {}, ...c.sides.map((s) => el("li", { class: "side" },
      el("div", { class: "meta", text: `${s.value} · ${place(s.path, s.line)} (v${s.version})${s.page ? ` p. ${s.page}` : ""}${s.anchor ? ` #${s.anchor}` : ""}` }),
      el("blockquote", { text: s.quote }))))),
  expiredPages: (d, f) => el("li", { "data-document": d.documentId, text: [d.path, f[d.reason] || d.reason,
    d.validUntil && `${f.validUntil} ${d.validUntil}`, d.supersededBy && `${f.supersededBy} ${d.supersededBy}`].filter(Boolean).join(" · ") }),
  undescribedPoints: (p, f) => el("li", { "data-point": p.id,
    text: `${p.id}${p.title ? ` (${p.title})` : ""} · ${f.declaredIn(p.declaredInCount)}: ${p.declaredIn.map((d) => d.path).join(", ")}` }),
  danglingRelations: (r, f) => el("li", {
    text: `${r.sourceId} -${r.type}-> ${r.targetId} (${f.stub}: ${f.ends[r.stubEnd] || r.stubEnd})${r.path ? ` · ${place(r.path, r.sourceLine)}` : ""}` }),
  nearDuplicates: (n, f) => el("li", {},
    el("div", { class: "meta", text: `${place(n.first.path, n.first.startLine)} ↔ ${place(n.second.path, n.second.startLine)} · ${f.similarity} ${n.similarity}` }),
    el("blockquote", { text: n.first.excerpt }), el("blockquote", { text: n.second.excerpt })),
  openGaps: (g, f) => el("li", { "data-ticket": g.ticketId,
    text: `${g.question} · ${value(g.status)} · ${f.asked(g.timesAsked)} · ${g.createdAt}` }),
};

function healthSection(name) {
  const page = state.health.sections[name];
  const more = page.nextAfter != null;
  return el("div", { class: "health-section", id: `health-${name}`, "data-section": name, "data-count": String(page.items.length) },
    el("h3", { tabindex: "-1", text: `${labels().sections[name]} (${page.items.length}${more ? "+" : ""})` }),
    el("ol", {}, ...page.items.map((item) => HEALTH_ITEMS[name](item, labels().findings))),
    ...(more ? [el("button", { type: "button", class: "more", text: labels().more, onclick: (event) => moreHealth(name, event.currentTarget) })] : []));
}

function renderHealth() {
  const report = state.health;
  $("health-summary").replaceChildren(labels().findings.checked(report.scope, report.generatedAt),
    ...(report.truncated ? [el("strong", { class: "truncated", text: ` ${labels().findings.truncated}` })] : []));
  $("health").replaceChildren(...HEALTH_SECTIONS.map(healthSection));
}

async function checkHealth(event) {
  event.preventDefault();
  state.lang = language(state.response?.trace?.plan?.query || $("question").value);
  relabel();
  const scope = $("scope").value.trim();
  if (!scope) { showError(labels().healthScopeNeeded); return; }
  try {
    const report = await api(`/v1/scopes/${encodeURIComponent(scope)}/health`);
    state.health = { scope: report.scope, generatedAt: report.generatedAt, truncated: report.contradictionsTruncated,
      sections: Object.fromEntries(HEALTH_SECTIONS.map((name) => [name, report[name]])) };
    renderHealth();
    showError(null);
  } catch (error) { showError(error); }
}

async function moreHealth(name, button) {
  const report = state.health;
  const page = report.sections[name];
  button.disabled = true;  // one click, one page: a second click would append the same page again
  try {
    const params = new URLSearchParams({ after: page.nextAfter });
    const next = await api(`/v1/scopes/${encodeURIComponent(report.scope)}/health/${name}?${params}`);
    if (state.health !== report) return;  // checked again meanwhile: this page belongs to the old report
    report.sections[name] = { items: [...page.items, ...next.items], nextAfter: next.nextAfter };
    const node = healthSection(name);
    $(`health-${name}`).replaceWith(node);
    (node.querySelector("button.more") || node.querySelector("h3")).focus();
    showError(null);
  } catch (error) { button.disabled = false; showError(error); }
}

// An answer that left a gap (its response carries `escalation`, docs/escalations.md) offers
// *Escalate*: the preview (POST /v1/escalations/preview) shows the server's draft as text, then
// *Confirm* sends that draft back unchanged and shows the ticket, or *Cancel* drops it. Each
// button is disabled while its request runs; a reply that comes after the answer changed is
// dropped (state.escalation is no longer the same object). A knowledge gap of the Operations tab
// is escalated the same way, with the traceId of its newest answer: the one escalation area
// moves under the gaps table (`gap: true`) and comes back to the answer with the next question.
function clearEscalation() {
  state.escalation = null;
  $("states").after($("escalation"));  // under the answer's states: the reason, then the offer
  markEscalatingGap();
  $("escalation").hidden = true;
  $("escalate").disabled = false;
  $("escalate-note").value = "";
  $("draft").hidden = true;
  $("draft-content").replaceChildren();
  for (const id of ["draft-confirm", "draft-cancel"]) { $(id).hidden = false; $(id).disabled = false; }
  $("ticket").textContent = "";
  delete $("ticket").dataset.ticketId;
}

function offerEscalation(response) {
  // Shown again (a language switch): the same answer keeps its draft or ticket; a gap's
  // escalation stays in the Operations tab, whichever answer is shown.
  if (!state.escalation?.gap && state.escalation?.traceId !== response.traceId) {
    clearEscalation();
    if (response.escalation) state.escalation = { traceId: response.traceId, preview: null, ticket: null };
  }
  renderEscalation();
}

function renderEscalation() {
  const current = state.escalation;
  $("escalation").hidden = !current;
  if (!current) return;
  $("draft").hidden = !current.preview || current.preview.status === "cancelled";
  if (current.preview) renderDraft(current.preview);
  const ticket = current.ticket;
  $("ticket").textContent = ticket ? labels().ticket(ticket.ticketId, labels().ticketStatus[ticket.status] || ticket.status) : "";
  if (ticket) $("ticket").dataset.ticketId = ticket.ticketId;
}

function renderDraft(preview) {
  const draft = preview.draft || {};
  const names = labels().draftFields;
  const list = (items, item) => el("ul", {}, ...items.map((x) => el("li", {}, ...item(x))));
  const rows = [
    ["question", draft.question], ["scope", draft.scope], ["answerStatus", value(draft.answerStatus)],
    ["missingTerms", (draft.missingTerms || []).join(", ")],
    ["reasons", list(draft.reasons || [], (r) => [r])],
    ["evidence", list(draft.evidence || [], (e) => [
      el("div", { class: "meta", text: `${[e.path, ...(e.headingPath || [])].join(" › ")} (${e.startOffset}–${e.endOffset}) · ${e.source}` }),
      el("blockquote", { text: e.quote })])],
    ["conflicts", list(draft.conflicts || [], (c) => [
      el("div", { class: "meta", text: `${c.values.join(" ≠ ")} · ${c.path} (${c.startOffset}–${c.endOffset})` }),
      el("blockquote", { text: c.quote })])],
    ["note", draft.note], ["expiresAt", preview.expiresAt],
  ].filter(([, v]) => v != null && v !== "" && !(v instanceof Node && !v.firstChild));
  $("draft-content").replaceChildren(...rows.flatMap(([field, v]) => [
    el("dt", { text: names[field] }), el("dd", { "data-field": field }, v)]));
  $("draft-content").dataset.draftId = preview.draftId;
}

async function escalate(event) {
  if (event) event.preventDefault();
  const current = state.escalation;
  if (!current || current.preview) return;
  $("escalate").disabled = true;
  try {
    const note = $("escalate-note").value.trim();
    const body = note ? { answerId: current.traceId, note } : { answerId: current.traceId };
    const preview = await api("/v1/escalations/preview", { method: "POST", body: JSON.stringify(body) });
    if (state.escalation !== current) return;  // another answer meanwhile: this draft is not its
    current.preview = preview;
    $("draft-confirm").disabled = false;
    $("draft-cancel").disabled = false;
    renderEscalation();
    $("draft-confirm").focus();
    showError(null);
  } catch (error) {
    if (state.escalation === current) $("escalate").disabled = false;
    showError(error);
  }
}

async function settleDraft(action) {
  const current = state.escalation;
  if (!current || !current.preview) return;
  $("draft-confirm").disabled = true;  // one click, one request: the ticket is made once
  $("draft-cancel").disabled = true;
  const path = `/v1/escalations/${encodeURIComponent(current.preview.draftId)}/${action}`;
  try {
    if (action === "confirm") {
      // The draft goes back exactly as the preview returned it: the server compares the two.
      const ticket = await api(path, { method: "POST", body: JSON.stringify({ draft: current.preview.draft }) });
      if (state.escalation !== current) return;
      current.ticket = ticket;
      $("draft-confirm").hidden = true;
      $("draft-cancel").hidden = true;
    } else {
      await api(path, { method: "POST" });
      if (state.escalation !== current) return;
      current.preview = null;  // cancelled for good: Escalate may draft anew
      $("escalate").disabled = false;
    }
    renderEscalation();
    showError(null);
  } catch (error) {
    if (state.escalation === current) { $("draft-confirm").disabled = false; $("draft-cancel").disabled = false; }
    showError(error);
  }
}

// The Operations tab (docs/inspector.md): answers per status over time and latency percentiles
// per stage (charts), the top knowledge gaps, the most- and never-cited documents and the
// failures, from GET /v1/ops/summary, /gaps and /failures for the scope field's scope (none:
// every scope the key reads) over the chosen window. Gap wordings are users' questions: like
// every text from the service they go in as text (a chart draws its labels on its canvas).
const STATUS_ORDER = ["answered", "partial", "conflict", "stale", "abstained", "refused"];
const STATUS_COLOURS = {
  answered: "#3c9a5f", partial: "#e0a040", conflict: "#8a5cc2", stale: "#8a949e",
  abstained: "#d05555", refused: "#6b3a3a",
};
const OPS_LIMIT = "10";  // rows of the gaps and of each document list
const isoSecond = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const percent = (rate) => (rate == null ? "–" : `${(100 * rate).toFixed(1)}%`);
const minute = (iso) => String(iso ?? "").slice(0, 16).replace("T", " ");  // UTC, like every time here
const timeCell = (iso) => el("td", { class: "time", title: String(iso ?? ""), text: minute(iso) });

function showView(name) {
  state.view = name;
  for (const tab of document.querySelectorAll("#tabs [role=tab]")) {
    const selected = tab.dataset.view === name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`${tab.dataset.view}-view`).hidden = !selected;
  }
  if (name === "ops" && !state.ops) loadOps();
}

async function loadOps(event) {
  if (event) event.preventDefault();
  state.lang = language(state.response?.trace?.plan?.query || $("question").value);
  relabel();
  const until = Date.now();
  const bounds = { since: isoSecond(until - Number($("ops-window").value) * 1000), until: isoSecond(until) };
  const scope = $("scope").value.trim();
  if (scope) bounds.scope = scope;
  const query = (extra) => new URLSearchParams({ ...bounds, ...extra });
  const [bucket, limit] = [{ bucket: $("ops-bucket").value }, { limit: OPS_LIMIT }];
  const request = {};
  state.opsRequest = request;  // a newer request (another window, Refresh) wins
  $("ops-refresh").disabled = true;
  try {
    const [summary, gaps, failures] = await Promise.all([api(`/v1/ops/summary?${query({ ...bucket, ...limit })}`),
      api(`/v1/ops/gaps?${query(limit)}`), api(`/v1/ops/failures?${query(bucket)}`)]);
    if (state.opsRequest !== request) return;
    state.ops = { summary, gaps: gaps.gaps || [], failures };
    renderOps();
    showError(null);
  } catch (error) {
    if (state.opsRequest === request) showError(error);
  } finally {
    if (state.opsRequest === request) $("ops-refresh").disabled = false;
  }
}

function statusesOf(summary) {
  const seen = new Set([...Object.keys(summary.totals?.byStatus || {}),
    ...(summary.buckets || []).flatMap((b) => Object.keys(b.byStatus || {}))]);
  return [...STATUS_ORDER.filter((s) => seen.has(s)), ...[...seen].filter((s) => !STATUS_ORDER.includes(s)).sort()];
}

function chart(id, config) {
  if (typeof Chart !== "function") return;
  Chart.getChart($(id))?.destroy();  // one chart per canvas: the new figures replace it
  new Chart($(id), { ...config, options: { animation: false, responsive: true, maintainAspectRatio: false, ...config.options } });
}

function renderOps() {
  const { summary, gaps, failures } = state.ops;
  const o = labels().ops;
  const totals = summary.totals || {};
  const byStatus = totals.byStatus || {};
  $("ops-range").textContent = o.range(summary.scope, minute(summary.since), minute(summary.until), summary.bucket);
  $("ops-totals").textContent = [o.answers(totals.answers ?? 0), ...statusesOf(summary).map((s) => `${value(s)} ${byStatus[s] ?? 0}`),
    `${o.abstentionRate} ${percent(totals.abstentionRate)}`, `${o.conflictRate} ${percent(totals.conflictRate)}`,
    o.tickets(summary.tickets?.opened ?? 0, summary.tickets?.closed ?? 0)].join(" · ");
  renderAnswersChart(summary);
  renderLatencyChart(summary);
  renderGaps(gaps);
  renderDocuments(summary);
  renderFailures(failures);
}

function renderAnswersChart(summary) {
  const buckets = summary.buckets || [];
  // Bucket starts are UTC: "12-04 19:00" by hour, "12-04" by day.
  const start = (b) => (summary.bucket === "day" ? b.start.slice(5, 10) : `${b.start.slice(5, 10)} ${b.start.slice(11, 16)}`);
  chart("ops-answers-chart", {
    type: "bar",
    data: {
      labels: buckets.map(start),
      datasets: statusesOf(summary).map((s) => ({ label: value(s), status: s, backgroundColor: STATUS_COLOURS[s] || "#7a9cc6",
        data: buckets.map((b) => b.byStatus?.[s] ?? 0) })),
    },
    options: {
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
      plugins: { legend: { position: "bottom" } },
    },
  });
}

function renderLatencyChart(summary) {
  const stages = summary.latencyMs || [];
  chart("ops-latency-chart", {
    type: "bar",
    data: {
      labels: stages.map((s) => s.stage),
      datasets: [
        { label: "p50", percentile: "p50", backgroundColor: "#7a9cc6", data: stages.map((s) => s.p50) },
        { label: "p95", percentile: "p95", backgroundColor: "#e0a040", data: stages.map((s) => s.p95) },
      ],
    },
    options: {
      indexAxis: "y", scales: { x: { beginAtZero: true } },
      plugins: { legend: { position: "bottom" },
        tooltip: { callbacks: { footer: (items) => labels().ops.answers(stages[items[0].dataIndex].answers) } } },
    },
  });
}

function renderGaps(gaps) {
  const o = labels().ops;
  $("ops-gaps").tBodies[0].replaceChildren(...gaps.map((gap) => {
    const others = (gap.wordings || []).filter((w) => w !== gap.query);
    const button = el("button", { type: "button", class: "gap-escalate", text: labels().escalate, onclick: () => escalateGap(gap) });
    button.disabled = !gap.traceId;
    return el("tr", { "data-trace": gap.traceId || "" },
      el("td", { class: "gap-question" }, el("div", { class: "query", text: gap.query }),
        ...(others.length ? [el("div", { class: "wordings", text: `${o.alsoAsked}: ${others.join(" · ")}` })] : [])),
      el("td", { class: "scope", text: gap.scope }), el("td", { class: "asked", text: String(gap.asked) }),
      el("td", { class: "statuses", text: Object.entries(gap.byStatus || {}).map(([s, n]) => `${value(s)} ${n}`).join(", ") }),
      timeCell(gap.lastAsked), el("td", { class: "tickets", text: (gap.openTickets || []).join("\n") }),
      el("td", {}, button));
  }));
  $("ops-gaps-empty").hidden = gaps.length > 0;
  $("ops-gaps-empty").textContent = o.noGaps;
  markEscalatingGap();
}

function markEscalatingGap() {
  const current = state.escalation;
  for (const row of document.querySelectorAll("#ops-gaps tbody tr")) {
    row.classList.toggle("escalating", Boolean(current?.gap) && row.dataset.trace === current.traceId);
  }
}

// A gap's Escalate: the answer's escalation flow above, for the gap's newest answer.
function escalateGap(gap) {
  const current = state.escalation;
  if (current?.gap && current.traceId === gap.traceId) {
    // Its area is open already: one draft at a time; after a cancel, draft anew.
    if (!current.preview && !$("escalate").disabled) escalate();
    return;
  }
  clearEscalation();
  state.escalation = { traceId: gap.traceId, preview: null, ticket: null, gap: true };
  $("ops-escalation-slot").append($("escalation"));
  markEscalatingGap();
  renderEscalation();
  escalate();
}

function renderDocuments(summary) {
  const o = labels().ops;
  const name = (d) => `${d.title || d.documentId} (${d.scope})`;
  const items = (documents, text) => (documents.length
    ? documents.map((d) => el("li", { "data-document": d.documentId, text: text(d) }))
    : [el("li", { class: "none", text: o.none })]);
  $("ops-top-cited").replaceChildren(...items(summary.topCitedDocuments || [], (d) => `${name(d)} · ${o.citations(d.citations)}`));
  $("ops-never-cited").replaceChildren(...items(summary.neverCitedDocuments || [], name));
}

function renderFailures(failures) {
  const o = labels().ops;
  const total = (failures.buckets || []).reduce((sum, b) => sum + (b.failures || 0), 0);
  $("ops-failures-total").textContent = o.failuresTotal(total);
  $("ops-failures").tBodies[0].replaceChildren(...(failures.byStage || []).map((f) => el("tr", { "data-stage": f.stage },
    el("td", { text: f.stage }), el("td", { text: f.errorType }), el("td", { text: String(f.failures) }), timeCell(f.lastAt))));
  const recent = (failures.recent || []).slice(0, 5);
  $("ops-recent-failures").replaceChildren(...(recent.length
    ? recent.map((f) => el("li", { "data-trace": f.traceId, text: `${minute(f.createdAt)} · ${f.scope ?? ""} · ${f.stage} · ${f.errorType} · ${f.status} · ${f.traceId}` }))
    : [el("li", { class: "none", text: o.none })]));
}

function init() {
  const params = new URLSearchParams(location.search);
  if (params.get("scope")) $("scope").value = params.get("scope");
  $("browser-url").value = `${location.protocol}//${location.hostname}:7474/browser/`;
  const link = () => { $("browser-link").href = $("browser-url").value; };
  $("browser-url").addEventListener("input", link); link();
  $("ask-form").addEventListener("submit", ask);
  $("recent-form").addEventListener("submit", loadRecent);
  $("upload-form").addEventListener("submit", (event) => upload(event).catch(showError));
  $("health-form").addEventListener("submit", checkHealth);
  $("escalate-form").addEventListener("submit", escalate);
  $("draft-confirm").addEventListener("click", () => settleDraft("confirm"));
  $("draft-cancel").addEventListener("click", () => settleDraft("cancel"));
  for (const tab of document.querySelectorAll("#tabs [role=tab]")) tab.addEventListener("click", () => showView(tab.dataset.view));
  $("tabs").addEventListener("keydown", (event) => {  // the arrow keys move between the two tabs
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const other = state.view === "ops" ? "evidence" : "ops";
    showView(other);
    $(`tab-${other}`).focus();
  });
  $("ops-form").addEventListener("submit", loadOps);
  for (const id of ["ops-window", "ops-bucket"]) $(id).addEventListener("change", () => loadOps());
  $("lang").addEventListener("change", () => {
    if (state.response) show(state.response);
    else { state.lang = language($("question").value); relabel(); }
    if (state.unavailable) renderUnavailable();
    renderEscalation();  // a gap's draft, when no answer is shown
    if (state.health) renderHealth();
    if (state.ops) renderOps();
  });
  relabel();
  if (params.get("view") === "ops") showView("ops");
}

init();
