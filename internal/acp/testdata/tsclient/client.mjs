// Drives `agent-ls acp` with the official ACP TypeScript SDK's client,
// which parses every request and notification it receives with the
// protocol's schema. Run by cmd/agent-ls TestACPWithTypeScriptClient:
//
//   AGENT_LS=path/to/agent-ls WORKSPACE=dir node client.mjs
//
// with OPENAI_BASE_URL pointing at the fake model server, whose script the
// Go test sets in the order of the scenarios below. Prints one line per
// scenario; exits 1 with the reason at the first failure.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const bin = process.env.AGENT_LS;
const ws = process.env.WORKSPACE;
if (!bin || !ws) {
  console.error("AGENT_LS and WORKSPACE must be set");
  process.exit(2);
}

// The SDK reports a message that fails the schema with console.error
// and drops it: any such report fails the run.
const schemaErrors = [];
const consoleError = console.error;
console.error = (...args) => {
  schemaErrors.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  consoleError(...args);
};

function fail(msg) {
  consoleError("FAIL: " + msg);
  process.exit(1);
}
function check(cond, msg) {
  if (!cond) fail(msg);
}
function ok(name) {
  console.log("ok " + name);
}

// One agent-ls acp process and the client connected to it.
function start(label) {
  const proc = spawn(bin, ["acp"], { cwd: ws, stdio: ["pipe", "pipe", "pipe"], env: process.env });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const state = {
    proc,
    updates: [],
    permissions: [],
    writes: [],
    reads: [],
    buffers: new Map(),
    missingEmpty: false,
    refuse: "", // a write to it fails, as when the user refuses it
    wire: [], // tool call titles and writes, in the order they came
    answer: "allow_once",
    onUpdate: null,
    log: () => stderr,
  };
  const app = client({ name: "agent-ls-ts-test-" + label })
    .onNotification(methods.client.session.update, ({ params }) => {
      state.updates.push(params.update);
      if (params.update.title) state.wire.push("call " + params.update.title);
      if (state.onUpdate) state.onUpdate(params.update);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      state.permissions.push(params);
      // Keys bound by kind, a later option of a kind taking the key of
      // an earlier one (as codecompanion and avante do); the user presses
      // the key of the kind state.answer.
      const keys = new Map(params.options.map((o) => [o.kind, o.optionId]));
      return { outcome: { outcome: "selected", optionId: keys.get(state.answer) } };
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => {
      state.reads.push(params.path);
      if (state.buffers.has(params.path)) return { content: state.buffers.get(params.path) };
      // A file that does not exist: an error (as acpx answers), or,
      // with missingEmpty, empty content (as codecompanion answers).
      if (state.missingEmpty && !fs.existsSync(params.path)) return { content: "" };
      return { content: fs.readFileSync(params.path, "utf8") };
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      state.writes.push(params.path);
      state.wire.push("write " + path.basename(params.path));
      if (params.path === state.refuse) throw new Error("the user refused this change");
      fs.writeFileSync(params.path, params.content);
      return {};
    });
  const stream = ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));
  state.run = (op) => app.connectWith(stream, op);
  return state;
}

const kinds = (updates) => updates.map((u) => u.sessionUpdate);
const text = (updates) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");
const read = (name) => fs.readFileSync(path.join(ws, name), "utf8");
const exists = (name) => fs.existsSync(path.join(ws, name));

const clientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: false };
let sessionId;
let emptySessionId;

const first = start("first");
await first.run(async (ctx) => {
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities,
    clientInfo: { name: "ts-sdk-test", version: "1" },
  });
  check(init.protocolVersion === 1, "protocolVersion " + init.protocolVersion);
  check(init.agentCapabilities.loadSession === true, "loadSession");
  check(init.agentCapabilities.promptCapabilities.image && init.agentCapabilities.promptCapabilities.embeddedContext, "promptCapabilities");
  check(init.authMethods.length === 0, "authMethods " + JSON.stringify(init.authMethods));
  check(init.agentInfo?.name === "agent-ls", "agentInfo");
  ok("initialize");

  const created = await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] });
  sessionId = created.sessionId;
  check(created.modes?.currentModeId === "auto", "modes " + JSON.stringify(created.modes));
  check(created.configOptions?.map((o) => o.id).join(",") === "mode,model,reasoning_effort,plan,network", "configOptions");
  const prompt = async (text) => {
    first.updates.length = 0;
    return ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  };

  // A streamed answer.
  let res = await prompt("say hello");
  check(res.stopReason === "end_turn", "stopReason " + res.stopReason);
  check(text(first.updates) === "hello from agent-ls", "streamed text " + JSON.stringify(text(first.updates)));
  check(first.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length > 1, "the answer came in one piece");
  // AGENTS.md and AGENTS.override.md are not there: the client is not
  // asked for them (acpx shows each such question as an error).
  check(!first.reads.some((p) => path.basename(p).startsWith("AGENTS")), "asked the client for missing files: " + first.reads);
  ok("streamed answer");

  // A command behind a permission: allowed, then rejected.
  first.answer = "allow_once";
  res = await prompt("write allowed.txt");
  check(res.stopReason === "end_turn", "stopReason " + res.stopReason);
  check(first.permissions.length === 1, "permission requests " + first.permissions.length);
  const p = first.permissions[0];
  check(p.toolCall.kind === "execute" && p.toolCall.toolCallId === "sh1", "permission tool call " + JSON.stringify(p.toolCall));
  check(
    p.options.map((o) => o.kind).join(",") === "allow_once,allow_always,reject_once,reject_always" &&
      p.options.every((o) => o.optionId === o.kind),
    "options " + JSON.stringify(p.options),
  );
  check(read("allowed.txt") === "yes\n", "allowed.txt");
  const call = first.updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "sh1");
  check(call && call.kind === "execute", "tool_call " + JSON.stringify(call));
  const sh1 = first.updates.filter((u) => u.toolCallId === "sh1" && u.status).map((u) => u.status);
  check(sh1.join(",") === "pending,in_progress,completed", "sh1 went " + sh1);
  ok("command allowed");

  first.answer = "reject_once";
  res = await prompt("write rejected.txt");
  check(res.stopReason === "end_turn", "stopReason " + res.stopReason);
  check(!exists("rejected.txt"), "a rejected command ran");
  check(first.updates.some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "sh2" && u.status === "failed"), "rejected call not failed");
  ok("command rejected (the turn goes on)");

  // A command that needs no question and prints nothing shows running
  // while it runs: a client that hides pending calls still sees it.
  first.permissions.length = 0;
  res = await prompt("sleep quietly");
  check(res.stopReason === "end_turn", "stopReason " + res.stopReason);
  check(first.permissions.length === 0, "asked about a sandboxed command");
  const shown = first.updates.filter((u) => u.toolCallId === "sh3" && u.status && u.status !== "pending").map((u) => u.status);
  check(shown.join(",") === "in_progress,completed", "a client hiding pending calls saw sh3 as " + shown);
  ok("quiet command shown running");

  // A patch written through fs/write_text_file, with diff blocks.
  first.writes.length = 0;
  res = await prompt("patch through the editor");
  check(res.stopReason === "end_turn", "stopReason " + res.stopReason);
  check(first.writes.includes(path.join(ws, "a.txt")) && first.writes.includes(path.join(ws, "new.txt")), "writes " + first.writes);
  check(read("a.txt") === "one\nTWO\n", "a.txt " + read("a.txt"));
  const diffs = first.updates.flatMap((u) => (u.toolCallId === "ed1" && u.content ? u.content : [])).filter((c) => c.type === "diff");
  check(diffs.some((d) => d.path === path.join(ws, "a.txt") && d.oldText === "one\ntwo\n" && d.newText === "one\nTWO\n"), "diff " + JSON.stringify(diffs));
  check(diffs.some((d) => d.path === path.join(ws, "new.txt") && d.oldText === null && d.newText === "fresh\n"), "new file diff " + JSON.stringify(diffs));
  check(first.updates.some((u) => u.toolCallId === "ed1" && u.kind === "edit"), "edit kind");
  ok("patch through fs/write_text_file");

  // A patch with a deletion goes to disk (the client cannot delete),
  // still shown as diff blocks.
  first.writes.length = 0;
  res = await prompt("patch on disk");
  check(res.stopReason === "end_turn", "stopReason " + res.stopReason);
  check(first.writes.length === 0, "written through the client: " + first.writes);
  check(!exists("gone.txt") && read("d.txt") === "D\n", "disk patch not applied");
  const diskDiffs = first.updates.flatMap((u) => (u.toolCallId === "ed2" && u.content ? u.content : [])).filter((c) => c.type === "diff");
  check(diskDiffs.some((d) => d.path === path.join(ws, "d.txt") && d.oldText === "d\n" && d.newText === "D\n"), "disk diff " + JSON.stringify(diskDiffs));
  ok("patch on disk with diff blocks");

  // read_file reads the editor's unsaved text.
  first.buffers.set(path.join(ws, "b.txt"), "UNSAVED editor text\n");
  res = await prompt("read b.txt");
  check(res.stopReason === "end_turn", "stopReason " + res.stopReason);
  check(first.reads.includes(path.join(ws, "b.txt")), "no fs/read_text_file of b.txt: " + first.reads);
  const readOut = first.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "rd1" && u.status === "completed");
  check(readOut && JSON.stringify(readOut.content).includes("UNSAVED editor text"), "read output " + JSON.stringify(readOut));
  ok("unsaved buffer through fs/read_text_file");

  // A client that answers a missing file with empty content: the model
  // is told the file does not exist, not that it is empty.
  first.missingEmpty = true;
  res = await prompt("read missing.txt");
  first.missingEmpty = false;
  const missing = first.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "rd2" && u.status);
  check(missing && missing.status === "failed" && JSON.stringify(missing.content).includes("no such file or directory"), "missing.txt read as " + JSON.stringify(missing));
  ok("a missing file is not an empty one");

  // A plan.
  res = await prompt("plan it");
  const plan = first.updates.find((u) => u.sessionUpdate === "plan");
  check(
    plan && plan.entries.map((e) => e.content + ":" + e.status).join(",") === "look:completed,change:in_progress,test:pending",
    "plan " + JSON.stringify(plan),
  );
  check(!first.updates.some((u) => u.toolCallId === "pl1"), "update_plan shown as a tool call");
  ok("plan");

  // The client refuses the second file of a change set: the first gets
  // its content back through the client, and the restore is shown (as a
  // tool call of its own) before the client is asked to write it.
  first.refuse = path.join(ws, "c2.txt");
  first.wire.length = 0;
  res = await prompt("patch two files");
  first.refuse = "";
  check(res.stopReason === "end_turn", "stopReason " + res.stopReason);
  check(read("c1.txt") === "c one\n" && read("c2.txt") === "c two\n", "after the refusal c1.txt " + JSON.stringify(read("c1.txt")));
  const w = first.wire.filter((e) => e.startsWith("write ") || e.startsWith("call Restore"));
  check(
    w.join("|") === "write c1.txt|write c2.txt|call Restore c1.txt: the change set was refused|write c1.txt",
    "refused change set: " + JSON.stringify(first.wire),
  );
  ok("restore after a refused write, shown first");

  // A session nobody prompts is not a conversation to list.
  emptySessionId = (await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] })).sessionId;

  // Cancel during a slow stream: the prompt answers cancelled.
  let cancelled = false;
  first.onUpdate = (u) => {
    if (!cancelled && u.sessionUpdate === "agent_message_chunk") {
      cancelled = true;
      ctx.notify(methods.agent.session.cancel, { sessionId });
    }
  };
  res = await prompt("stream slowly");
  first.onUpdate = null;
  check(cancelled, "no chunk before the cancel");
  check(res.stopReason === "cancelled", "stopReason after cancel " + res.stopReason);
  ok("cancel during a slow stream");
});
first.proc.stdin.end();
await new Promise((r) => first.proc.on("exit", r));

// After a restart: load replays the conversation; /undo undoes the last
// turn that changed files (the disk patch).
const second = start("second");
await second.run(async (ctx) => {
  await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities, clientInfo: { name: "ts-sdk-test", version: "1" } });
  const list = await ctx.request(methods.agent.session.list, { cwd: ws });
  check(list.sessions.some((s) => s.sessionId === sessionId && s.title === "say hello"), "session/list " + JSON.stringify(list));
  check(emptySessionId && !list.sessions.some((s) => s.sessionId === emptySessionId), "session/list shows an empty session " + JSON.stringify(list));
  await ctx.request(methods.agent.session.load, { sessionId, cwd: ws, mcpServers: [] });
  const k = kinds(second.updates);
  check(k[0] === "user_message_chunk", "replay starts with " + k[0]);
  check(k.includes("tool_call") && k.includes("tool_call_update") && k.includes("plan"), "replay " + k);
  check(text(second.updates).includes("hello from agent-ls"), "replayed text");
  const replayedDiffs = second.updates.flatMap((u) => (u.content && Array.isArray(u.content) ? u.content : [])).filter((c) => c.type === "diff");
  check(replayedDiffs.some((d) => d.path === path.join(ws, "new.txt") && d.oldText === null), "replayed diff blocks " + JSON.stringify(replayedDiffs));
  ok("load after restart");

  second.updates.length = 0;
  const res = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/undo" }] });
  check(res.stopReason === "end_turn", "/undo stopReason " + res.stopReason);
  check(exists("gone.txt") && read("d.txt") === "d\n", "/undo did not restore the disk patch");
  check(text(second.updates).startsWith("Undid"), "/undo said " + text(second.updates));
  ok("slash-command undo");
});
second.proc.stdin.end();
await new Promise((r) => second.proc.on("exit", r));

// A client that takes live command output as codex-acp's
// _meta.terminal_output (as Zed does): a command session shows on its
// exec_command call as terminal content, its output after the turn ended
// as terminal_output, its end as terminal_exit; /terminals lists it.
const third = start("third");
await third.run(async (ctx) => {
  await ctx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { ...clientCapabilities, _meta: { terminal_output: true } },
    clientInfo: { name: "ts-sdk-test", version: "1" },
  });
  const sid = (await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] })).sessionId;
  const exited = new Promise((resolve) => {
    third.onUpdate = (u) => {
      if (u._meta?.terminal_exit) resolve(u);
    };
  });
  let res = await ctx.request(methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: "start a session" }] });
  check(res.stopReason === "end_turn", "terminal prompt stopReason " + res.stopReason);
  const exit = (await exited)._meta.terminal_exit;
  third.onUpdate = null;
  check(exit.terminal_id === "tx1" && exit.exit_code === 0 && exit.signal === null, "terminal_exit " + JSON.stringify(exit));
  const started = third.updates.find((u) => u._meta?.terminal_info);
  check(
    started?.sessionUpdate === "tool_call" && started.content?.[0]?.type === "terminal" && started.content[0].terminalId === "tx1" && started._meta.terminal_info.cwd === ws,
    "terminal_info " + JSON.stringify(started),
  );
  const data = third.updates.filter((u) => u._meta?.terminal_output).map((u) => u._meta.terminal_output.data).join("");
  check(data === "first\nsecond\n", "terminal_output " + JSON.stringify(data));
  ok("live command output as _meta.terminal_output");

  third.updates.length = 0;
  res = await ctx.request(methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: "/terminals" }] });
  const listed = text(third.updates);
  check(res.stopReason === "end_turn" && listed.includes("- 1000: echo first; sleep 0.5; echo second (exited with code 0)"), "/terminals said " + listed);
  ok("slash-command terminals");
});
third.proc.stdin.end();
await new Promise((r) => third.proc.on("exit", r));

check(schemaErrors.length === 0, "the SDK reported messages it could not take:\n" + schemaErrors.join("\n"));
console.log("PASS");
