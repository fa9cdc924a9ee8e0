// A question to the model, when `evident serve` has one: the agent's steps
// as they happen (server-sent events from its event stream), then the answer
// as text, its citations linked to the file view with the cited lines marked.
import { api } from "./api.js";
import { show, el, fileHref, link } from "./dom.js";

/// One line for one event of the agent's stream (null: not a step of its own).
function describe(step) {
  switch (step.event) {
    case "model_delta": case "tool_started": return null;
    case "model_started": return `round ${step.round}: the model is working`;
    case "tool_proposed": return `→ ${step.name} ${JSON.stringify(step.arguments ?? {})}`;
    case "tool_finished": return `✓ ${step.name}: ${step.error ?? step.summary} (${Math.round(step.ms)} ms)`;
    case "tool_rejected": return `✗ ${step.name}: ${step.error}`;
    case "tool_repeated": return `↺ ${step.name}: already done in round ${step.first_round}`;
    case "prefetched": return `looked up ${step.calls} thing(s) first`;
    case "model_finished": return `the model answered (${step.completion_tokens ?? "?"} tokens)`;
    case "finished": return `finished after ${step.rounds} round(s), ${step.tool_calls} tool call(s)`;
    default: return step.event.replace(/_/g, " ");
  }
}

export async function askView(main, _rest, params) {
  const model = await api("/api/model");
  const input = el("input", { id: "question", type: "text", placeholder: "Ask about this repository" });
  const send = el("button", { type: "button", id: "ask" }, "Ask");
  const steps = el("ol", { id: "steps", class: "steps" });
  const answer = el("div", { id: "answer", class: "answer" });
  if (!model.model) {
    show(main, el("h2", {}, "Ask"), el("p", { class: "notes", id: "no-model" },
      `No model is configured: ${model.why}. Start evident serve with --model NAME (and --provider, --base-url), as for evident ask.`));
    return;
  }
  show(main, el("h2", {}, `Ask ${model.model}`), el("div", { class: "filters" }, input, send), el("h3", {}, "Steps"), steps, answer);
  let source;
  function ask() {
    const question = input.value.trim();
    if (!question) return;
    history.replaceState(null, "", `/ask?q=${encodeURIComponent(question)}`);
    source?.close();
    steps.replaceChildren();
    answer.replaceChildren(el("p", { class: "notes" }, "working…"));
    source = new EventSource(`/api/ask?q=${encodeURIComponent(question)}`);
    source.addEventListener("step", (event) => {
      const line = describe(JSON.parse(event.data));
      if (line) steps.append(el("li", {}, line));
    });
    source.addEventListener("failed", (event) => {
      source.close();
      answer.replaceChildren(el("p", { class: "error" }, JSON.parse(event.data).error));
    });
    source.addEventListener("answer", (event) => {
      source.close();
      const done = JSON.parse(event.data);
      answer.replaceChildren(
        el("h3", {}, "Answer"),
        el("p", { class: "answer-text" }, done.answer),
        el("h3", {}, `Citations (${done.citations.length})`),
        el("ul", { id: "citations" }, done.citations.map((c) => el("li", {},
          link(fileHref(c.path, c.start_line, c.end_line), `${c.path}:${c.start_line}-${c.end_line}`),
          " ", el("span", { class: `support ${c.support}` }, String(c.support))))),
        el("p", { class: "notes" }, `${done.reason}: ${done.rounds} round(s), ${done.tool_calls} tool call(s)`));
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) return;
      source.close();
      if (!answer.querySelector("h3")) answer.replaceChildren(el("p", { class: "error" }, "the answer stream broke off"));
    };
  }
  send.addEventListener("click", ask);
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") ask(); });
  input.value = params.get("q") || "";
  input.focus();
}
