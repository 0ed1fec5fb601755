#!/usr/bin/env python3
"""End-to-end check of `hyrax serve` with the official MCP Python SDK's stdio client.

Builds a small corpus in a temporary folder, starts `./hyrax serve` through
mcp.client.stdio.stdio_client, initializes, lists the tools and calls every one of them. The
SDK validates each structuredContent against the tool's outputSchema (ClientSession.call_tool);
this script validates again with jsonschema and checks the answers make sense. Bad arguments
must come back as isError results, not protocol errors.

Then, on a corpus of its own, it plays an agent written against the seeds: the tool definitions
of seed 003 (semantic_search ... document_details), seed 001 (semanticSearch, getContext) and seed
002's search request are read from tools/e2e/seed_tools.txt, copied verbatim from the seeds. Every
tool and argument name they define must be in tools/list; seed 001's and 002's examples are sent
as written; seed 003's tools are called with every argument the seed lists, and the answers must
hold the fields the seed's response examples name.

    python3 tools/e2e/mcp_sdk_check.py [--hyrax ./hyrax]

Run by .ci/run (after installing tools/e2e/requirements.txt into a venv); not part of make test.
Ends with the line "N passed, N failed".
"""
import argparse
import asyncio
import json
import os
import re
import sys
import tempfile

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# every tool, as `serve --tools all` lists them; CORE: the default list (`--tools core`)
CORE = ["search", "get_context", "find_similar", "list_documents", "get_document", "document_status", "reindex",
        "index_health"]
TOOLS = ["search", "get_context", "find_similar", "list_documents", "get_document", "document_status",
         "add_document", "delete_document", "reindex", "index_health", "create_baseline", "audit_log", "semantic_search", "full_text_search",
         "hybrid_search", "document_details", "semanticSearch", "getContext", "publish", "record_turn",
         "get_session", "search_history", "list_sessions"]
HERE = os.path.dirname(os.path.abspath(__file__))

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)


def write_corpus(root):
    docs = {
        "docs/scheduler.md": "# Scheduler\n\nThe kube-scheduler assigns pods to nodes by resource requests.\n",
        "docs/storage.md": "---\nsig: storage\n---\n# Volumes\n\nPersistent volumes keep data across restarts.\n",
        "kep.yaml": "title: Memory QoS\nowning-sig: sig-node\nsummary: memory.high throttles containers.\n",
    }
    for rel, text in docs.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)


async def run(hyrax, root):
    db = os.path.join(root, ".hyrax", "index.hyx")
    params = StdioServerParameters(command=hyrax, args=["serve", "--db", db, "--root", root], cwd=root)
    async with stdio_client(params) as (read, write):   # the default list: small, core tools only
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            size = len(json.dumps(listed.model_dump(mode="json", by_alias=True, exclude_none=True),
                                  separators=(",", ":")))
            check([t.name for t in listed.tools] == CORE and size <= 12288,
                  "default tools/list: the core tools in %d bytes" % size)
    params = StdioServerParameters(command=hyrax, args=["serve", "--tools", "all", "--db", db, "--root", root],
                                   cwd=root)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.protocol_version in ("2025-11-25", "2025-06-18"), "negotiated %s" % init.protocol_version)
            listed = await session.list_tools()
            names = [t.name for t in listed.tools]
            check(names == TOOLS, "tool names %s" % names)
            schemas = {t.name: t.output_schema for t in listed.tools}
            for t in listed.tools:
                jsonschema.Draft202012Validator.check_schema(t.input_schema)
                jsonschema.Draft202012Validator.check_schema(t.output_schema)

            async def call(name, args, expect_error=False):
                r = await session.call_tool(name, args)
                check(bool(r.is_error) == expect_error, "%s %s: isError=%s %s" % (name, args, r.is_error,
                      r.content[0].text[:200] if r.content else ""))
                if not r.is_error:
                    try:
                        jsonschema.validate(r.structured_content, schemas[name])
                        check(True, name)
                    except jsonschema.ValidationError as e:
                        check(False, "%s output does not match its schema: %s" % (name, e.message))
                    check(json.loads(r.content[0].text) == r.structured_content, "%s text = structured" % name)
                return r.structured_content

            r = await call("reindex", {})
            check(r["added"] == 3 and r["searchable"], "reindex added 3")
            r = await call("search", {"query": "pods", "group_by": "chunk", "min_score": 0, "max_bytes": 2048})
            check(len(json.dumps(r, separators=(",", ":"))) <= 2100 and r.get("next_cursor"),
                  "max_bytes 2048: results left for next_cursor: %s" % json.dumps(r)[:200])
            r = await call("search", {"query": "pods", "group_by": "chunk", "min_score": 0, "max_bytes": 2048,
                                      "cursor": r.get("next_cursor")})
            check(r["results"], "the cursor continues")
            r = await call("search", {"query": "where are pods placed", "top_k": 3})
            check(r["results"] and r["results"][0]["citation"]["path"] == "docs/scheduler.md", "semantic answer")
            r = await call("search", {"query": "memory.high", "mode": "keyword"})
            check(r["results"] and r["results"][0]["citation"]["path"] == "kep.yaml", "identifier answer")
            r = await call("search", {"query": "data", "filters": {"sig": "storage"}})
            check(all(x["citation"]["path"] == "docs/storage.md" for x in r["results"]), "metadata filter")
            await call("search", {"query": "x", "top_k": 0}, expect_error=True)
            await call("search", {"query": "x", "mode": "magic"}, expect_error=True)
            r = await call("get_context", {"query": "pods and nodes", "max_tokens": 300})
            check(r["total_tokens"] <= 300 and r["context"].startswith("[1] "), "context within budget")
            r = await call("find_similar", {"path": "docs/scheduler.md"})
            check(all(x["citation"]["path"] != "docs/scheduler.md" for x in r["results"]), "similar excludes itself")
            r = await call("list_documents", {"sort_by": "path", "limit": 2})
            check(r["total"] == 3 and len(r["documents"]) == 2, "list paging")
            doc_id = r["documents"][0]["id"]
            r = await call("get_document", {"doc_id": doc_id})
            check(r["chunks"] and r["hash"] == r["version"], "get_document")
            r = await call("document_status", {"path": "kep.yaml"})
            check(r["status"] == "complete" and r["embeddings"]["dimension"] == 384, "document_status")
            r = await call("create_baseline", {"name": "v1"})
            v1 = r["generation"]
            r = await call("add_document", {"content": "# Quota\n\nQuotas cap namespace usage.", "name": "notes/q.md",
                                            "metadata": {"team": "ops"}})
            check(r["searchable"] and r["document"]["path"] == "notes/q.md", "add_document")
            r = await call("search", {"query": "quotas", "mode": "keyword", "filters": {"team": "ops"}})
            check(len(r["results"]) == 1, "added document searchable")
            at_v1 = {"selector": "baseline_id", "baseline_id": "v1"}
            r = await call("search", {"query": "quotas", "mode": "keyword", "read_context": at_v1})
            check(r["results"] == [] and r["read_context"]["generation"] == v1, "baseline v1 predates it")
            r = await call("list_documents", {"read_context": at_v1})
            check(r["total"] == 3 and r["read_context"]["baseline_id"] == "v1", "list_documents at v1")
            await call("search", {"query": "x", "read_context": {"selector": "published"}}, expect_error=True)
            r = await call("delete_document", {"path": "notes/q.md"})
            check(r["deleted_chunks"] == 1, "delete_document")
            await call("add_document", {"path": "../../etc/passwd"}, expect_error=True)
            r = await call("index_health", {})
            check(r["status"] == "ok" and r["documents"] == 3 and "search" in r["latency"], "index_health")
            for q, a in [("how does bread rise?", "yeast makes gas"), ("what places pods?", "the scheduler")]:
                r = await call("record_turn", {"session_id": "e2e", "user_message": q, "agent_response": a,
                                               "retrieved_docs": ["docs/scheduler.md"], "search_method": "hybrid"})
            check(r["turn_number"] == 2, "record_turn numbers the session's turns")
            r = await call("get_session", {"session_id": "e2e"})
            check([t["user_message"] for t in r["turns"]] == ["how does bread rise?", "what places pods?"], "get_session")
            r = await call("search_history", {"query": "pod scheduling", "top_k": 1})
            check(r["results"][0]["user_message"] == "what places pods?", "search_history")
            r = await call("list_sessions", {})
            check(r["sessions"] == [{"session_id": "e2e", "turns": 2, "last_turn_at": r["sessions"][0]["last_turn_at"]}],
                  "list_sessions")


# === The seeds' tool definitions (tools/e2e/seed_tools.txt) ===

def seed_blocks(path):
    """{"003": text, "001": text, "002": text}: the verbatim excerpts of each seed."""
    blocks, cur = {}, None
    with open(path) as fh:
        for line in fh:
            if line.startswith("=== seed "):
                cur = line.split()[2]
                blocks[cur] = []
            elif cur:
                blocks[cur].append(line)
    return {k: "".join(v) for k, v in blocks.items()}


def seed003_tools(text):
    """{name: (argument names, {argument: words after the colon}, response example)} from seed 003's
    "### Endpoint" sections: the "- `arg`: ..." bullets under **Input:** and the ```json response
    (or delete_document's "Return: `{...}`"; {} for the search tools, whose results are prose)."""
    tools = {}
    parts = re.split(r"^### Endpoint: `(\w+)`$", text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        inp = body.split("**Input:**", 1)[1]
        inp = re.split(r"^\*\*", inp, maxsplit=1, flags=re.M)[0]
        args = re.findall(r"^- `(\w+)`: (.*)$", inp, flags=re.M)
        m = re.search(r"```json\n(.*?)\n```", body, flags=re.S)
        ret = re.search(r"Return: `\{(.*?)\}`", body)
        response = json.loads(m.group(1)) if m else {k: True for k in re.findall(r"(\w+):", ret.group(1))} if ret else {}
        tools[name] = ([a for a, _ in args], dict(args), response)
    return tools


def seed001_tools(text):
    """({name: argument names}, [(tool, example arguments)]) from seed 001's manifest YAML (names
    at the first level under input.properties) and its 5.1 usage examples."""
    tools = {}
    for m in re.finditer(r"^  - name: (\w+)\n(.*?)(?=^  - name: |^```)", text, flags=re.M | re.S):
        if "    input:\n" in m.group(2):
            inp = m.group(2).split("    input:\n", 1)[1].split("    output:", 1)[0]
            tools[m.group(1)] = re.findall(r"^        (\w+):", inp, flags=re.M)
    examples = [(m.group(1), json.loads(m.group(2)))
                for m in re.finditer(r"\[invokes transformation\.(\w+)\]\n(\{.*?\n\})", text, flags=re.S)]
    return tools, examples


def seed002_example(text):
    return json.loads(re.search(r'"example": (\{.*?\n {12}\})', text, flags=re.S).group(1))


def write_seed_corpus(root):
    docs = {
        "guides/orders.md": "---\ncategory: guides\nlayer: application\n---\n# Order fulfillment\n\n"
                            "The OrderService handles order fulfillment: picking, packing and shipping each order.\n",
        "guides/auth.md": "---\ncategory: security\n---\n# Customer authentication\n\nCustomers sign in through "
                          "the IdentityProvider; the AuthService checks their tokens on every request.\n",
        "keps/crd.md": "---\nsig_name: sig-api-machinery\n---\n# CRD versioning\n\nKubernetes serves several "
                       "versions of a CustomResourceDefinition and converts between them with a conversion webhook.\n",
    }
    for rel, text in docs.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)


def keys_missing(answer, example):
    """The keys of the seed's response example (and of its first list items) the answer lacks."""
    missing = [k for k in example if k not in answer]
    for k, v in example.items():
        if isinstance(v, list) and v and isinstance(v[0], dict) and answer.get(k):
            missing += ["%s[].%s" % (k, kk) for kk in v[0] if kk not in answer[k][0]]
    return missing


async def run_seeds(hyrax, root):
    blocks = seed_blocks(os.path.join(HERE, "seed_tools.txt"))
    s003 = seed003_tools(blocks["003"])
    s001, examples001 = seed001_tools(blocks["001"])
    example002 = seed002_example(blocks["002"])
    check(sorted(s003) == sorted(["semantic_search", "full_text_search", "hybrid_search", "list_documents",
                                  "document_status", "delete_document", "document_details"]), "seed 003 tools read")
    check(sorted(s001) == ["getContext", "semanticSearch"] and len(examples001) == 2, "seed 001 tools read")
    db = os.path.join(root, ".hyrax", "index.hyx")
    params = StdioServerParameters(command=hyrax, args=["serve", "--tools", "all", "--db", db, "--root", root],
                                   cwd=root)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = {t.name: t for t in (await session.list_tools()).tools}
            defined = [(n, a) for n, (args, _, _) in s003.items() for a in args] + \
                      [(n, a) for n, args in s001.items() for a in args] + [("search", a) for a in example002]
            for tool, arg in defined:
                check(tool in listed and arg in listed[tool].input_schema["properties"],
                      "%s takes the seed's argument %s" % (tool, arg))
            # the sub-keys seed 003 names for its filter objects, and list_documents' sort keys
            for tool, (args, words, _) in s003.items():
                for arg in args:
                    if arg in ("filters", "doc_filter") and tool in listed:
                        props = listed[tool].input_schema["properties"].get(arg, {}).get("properties", {})
                        for key in re.findall(r"category|tags|date_range|status", words[arg]):
                            check(key in props, "%s.%s names %s" % (tool, arg, key))

            async def call(name, args):
                if name not in listed:
                    check(False, "%s is not in tools/list" % name)
                    return {}
                r = await session.call_tool(name, args)
                check(not r.is_error, "%s %s: %s" % (name, args, r.content[0].text[:300] if r.content else ""))
                if r.is_error:
                    return {}
                try:
                    jsonschema.validate(r.structured_content, listed[name].output_schema)
                except jsonschema.ValidationError as e:
                    check(False, "%s output does not match its schema: %s" % (name, e.message))
                return r.structured_content

            r = await call("reindex", {})
            check(r.get("added") == 3, "seed corpus indexed")

            # seed 001's and seed 002's examples, as written
            for tool, args in examples001:
                r = await call(tool, args)
                if tool == "semanticSearch":
                    check(r.get("results") and r["results"][0].get("filename") == "guides/orders.md",
                          "semanticSearch example: the order fulfillment guide: %s" % r.get("results"))
                else:
                    check(r.get("context") and r["sources"][0]["path"] == "guides/auth.md" and
                          "relevance" in r["sources"][0], "getContext example: the authentication guide first")
            r = await call("search", example002)
            check(r.get("results") and r["results"][0]["citation"]["path"] == "keps/crd.md" and
                  all(x["metadata"].get("sig_name") == "sig-api-machinery" for x in r["results"]),
                  "seed 002 example: the CRD KEP, filtered by sig_name")

            # seed 003: every argument the seed lists, with values for this corpus
            docs = (await call("list_documents", {"sort_by": "filename"})).get("documents", [])
            orders = next((d["id"] for d in docs if d["filename"] == "guides/orders.md"), 0)
            calls = {
                "semantic_search": {"query": "how are orders picked, packed and shipped", "limit": 3,
                                    "doc_filter": {"category": "guides"}, "threshold": 0.3},
                "full_text_search": {"query": "OrderService", "filters": {"category": "guides"}, "limit": 10},
                "hybrid_search": {"query": "conversion webhook for CRD versions", "semantic_weight": 0.6,
                                  "text_weight": 0.4, "limit": 3},
                "list_documents": {"filters": {"status": "complete"}, "sort_by": "filename", "limit": 2, "offset": 1},
                "document_status": {"doc_id": orders},
                "document_details": {"doc_id": orders},
                "delete_document": {"doc_id": orders, "purge_index": True},
            }
            for name in ["semantic_search", "full_text_search", "hybrid_search", "list_documents", "document_status",
                         "document_details", "delete_document"]:
                args, _, response = s003[name]
                check(sorted(calls[name]) == sorted(args), "%s called with every argument seed 003 lists" % name)
                r = await call(name, calls[name])
                if name.endswith("_search"):
                    res = r.get("results") or [{}]
                    for field in ("text", "score", "filename", "title", "metadata", "chunk_index"):
                        check(field in res[0], "%s result has %s (seed 003: text, score, metadata, chunk index)" % (name, field))
                    want = "keps/crd.md" if name == "hybrid_search" else "guides/orders.md"
                    check(res[0].get("filename") == want, "%s: %s first, got %s" % (name, want, res[0].get("filename")))
                    if name == "full_text_search":
                        check("**OrderService**" in res[0].get("snippet", ""), "full_text_search: the matched snippet")
                    if name == "hybrid_search":
                        names = [x["filename"] for x in r.get("results", [])]
                        check(len(names) == len(set(names)), "hybrid_search: one result per document")
                else:
                    missing = keys_missing(r, response)
                    check(not missing, "%s answers the fields seed 003 names; missing %s" % (name, missing))
                if name == "list_documents":
                    check(r.get("total") == 3 and [d["filename"] for d in r.get("documents", [])] ==
                          ["guides/orders.md", "keps/crd.md"], "list_documents page 2 of 2 by filename")
                    for key in re.findall(r"filename|uploaded_at|category", s003[name][1]["sort_by"]):
                        await call(name, {"sort_by": key})
                if name == "delete_document":
                    check(r.get("success") is True and r.get("deleted_chunks", 0) >= 1, "delete_document answer")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--hyrax", default=os.path.join(here, "..", "..", "hyrax"))
    args = ap.parse_args()
    hyrax = os.path.abspath(args.hyrax)
    with tempfile.TemporaryDirectory() as root:
        root = os.path.realpath(root)
        write_corpus(root)
        asyncio.run(run(hyrax, root))
    with tempfile.TemporaryDirectory() as root:
        root = os.path.realpath(root)
        write_seed_corpus(root)
        asyncio.run(run_seeds(hyrax, root))
    print("mcp sdk e2e: %d passed, %d failed" % (passed, failed))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
