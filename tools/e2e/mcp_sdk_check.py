#!/usr/bin/env python3
"""End-to-end check of `hyrax serve` with the official MCP Python SDK's stdio client.

Builds a small corpus in a temporary folder, starts `./hyrax serve` through
mcp.client.stdio.stdio_client, initializes, lists the tools and calls every one of them. The
SDK validates each structuredContent against the tool's outputSchema (ClientSession.call_tool);
this script validates again with jsonschema and checks the answers make sense. Bad arguments
must come back as isError results, not protocol errors.

    python3 tools/e2e/mcp_sdk_check.py [--hyrax ./hyrax]

Run by .ci/run (after installing tools/e2e/requirements.txt into a venv); not part of make test.
Ends with the line "N passed, N failed".
"""
import argparse
import asyncio
import json
import os
import sys
import tempfile

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TOOLS = ["search", "get_context", "find_similar", "list_documents", "get_document", "document_status",
         "add_document", "delete_document", "reindex", "index_health", "create_baseline"]

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
    print("mcp sdk e2e: %d passed, %d failed" % (passed, failed))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
