"""The official Python MCP SDK as a client of `evident mcp`.

Usage: mcp_client.py EVIDENT_BINARY REPO

Starts the server over stdio, lists the tools, calls each one on the fixture
repository made by tests/mcp.rs, checks the results (the SDK itself validates
each structured result against the tool's output schema), checks that bad
arguments and unknown tools get errors and that the session survives them,
and prints the tool list as JSON (`TOOLS {...}`) for the Rust side to compare
with the agent's registry. Exits non-zero on the first failed check.
"""

import json
import sys

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

EVIDENT, REPO = sys.argv[1], sys.argv[2]


def check(condition, what):
    if not condition:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)
    print(f"ok: {what}", flush=True)


def text(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


def paths(result):
    check(not result.is_error, f"no error ({text(result)[:200]})")
    return sorted({e["path"] for e in result.structured_content["evidence"]})


async def main():
    server = StdioServerParameters(command=EVIDENT, args=["mcp", "--repo", REPO])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "evident", "the server says it is evident")

            listed = await session.list_tools()
            tools = {tool.name: tool for tool in listed.tools}
            expected = [
                "analyze_impact", "find_importers", "find_references", "find_symbol",
                "get_callees", "get_callers", "list_sources", "read_evidence",
                "read_git_diff", "read_source", "search_code",
            ]
            check(sorted(tools) == expected, f"the read-only tools listed: {sorted(tools)}")
            for tool in listed.tools:
                check(tool.annotations.read_only_hint is True, f"{tool.name} is marked read-only")
                check(tool.output_schema is not None, f"{tool.name} declares its output")
            print("TOOLS " + json.dumps([
                {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
                for t in listed.tools
            ]), flush=True)

            progress = []

            async def on_progress(value, total, message):
                progress.append((value, total, message))

            found = await session.call_tool(
                "search_code", {"query": "collection name"}, progress_callback=on_progress
            )
            check("pkg/rag_common.py" in paths(found), "search_code finds the module")

            symbol = await session.call_tool("find_symbol", {"name": "get_collection_name"})
            check(paths(symbol) == ["pkg/rag_common.py"], "find_symbol finds the definition")
            record = symbol.structured_content["evidence"][0]
            check(record["start_line"] == 4 and record["end_line"] == 5, "with its lines")
            check(record["snippet"].startswith("def get_collection_name"), "and its real text")

            read = await session.call_tool(
                "read_evidence", {"path": "pkg/rag_common.py", "start_line": 1, "end_line": 1}
            )
            check(read.structured_content["evidence"][0]["snippet"] == 'PREFIX = "rag"',
                  "read_evidence reads the line")

            importers = await session.call_tool("find_importers", {"module": "pkg.rag_common"})
            check(paths(importers) == ["ingest.py", "query.py"], "find_importers finds both importers")

            callers = await session.call_tool("get_callers", {"symbol": "get_collection_name"})
            check(paths(callers) == ["ingest.py", "query.py"], "get_callers finds both callers")

            impact = await session.call_tool("analyze_impact", {"symbol": "get_collection_name"})
            names = " ".join(e["name"] for e in impact.structured_content["evidence"])
            check("ingest" in names and "search" in names, f"analyze_impact reaches both ({names})")

            diff = await session.call_tool("read_git_diff", {})
            check("ingest.py" in paths(diff), "read_git_diff shows the uncommitted change")

            sources = await session.call_tool("list_sources", {})
            guide = [e for e in sources.structured_content["evidence"] if e["path"] == "GUIDE.md"]
            check(len(guide) == 1 and guide[0].get("doc_id"), "list_sources lists the guide")

            section = await session.call_tool(
                "read_source", {"doc_id": guide[0]["doc_id"], "section": "Naming"}
            )
            check("The prefix is rag." in text(section), "read_source reads a section")

            bad = [
                ("find_symbol", {"name": 7}, '"name"'),
                ("find_symbol", {"name": "x", "overwrite": True}, "overwrite"),
                ("read_evidence", {"path": "../../etc/passwd", "start_line": 1, "end_line": 1},
                 "leaves the repository"),
                ("read_evidence", {"path": ".env", "start_line": 1, "end_line": 1}, "secret"),
                ("read_evidence", {"path": "ingest.py", "start_line": 1, "end_line": 100000},
                 "end_line"),
                ("get_callers", {"symbol": "x", "depth": "deep"}, "depth"),
            ]
            for tool, arguments, expected in bad:
                result = await session.call_tool(tool, arguments)
                check(result.is_error and expected in text(result),
                      f"{tool} {arguments} is refused: {text(result)[:120]}")
                check("do-not-leak" not in text(result), "and leaks nothing")

            try:
                await session.call_tool("write_file", {"path": "x", "content": "y"})
                check(False, "an unknown tool is an error")
            except MCPError as error:
                check("write_file" in str(error) and "search_code" in str(error),
                      f"an unknown tool is a protocol error: {error}")

            again = await session.call_tool("find_symbol", {"name": "ingest"})
            check(paths(again) == ["ingest.py"], "the session goes on after the errors")
    print("all checks passed", flush=True)


anyio.run(main)
