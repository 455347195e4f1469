# frozen_string_literal: true

# An MCP server made with the official Ruby SDK (gem mcp 1.3.0, from ../shared/ruby) and
# validated by toolschema through the drop-in, serving over stdio every tool of
# ../shared/corpus/mcp-tools (the first of each name). Every tool answers "ok"; a tool
# with an output schema answers the structured content `{}`, which breaks an output
# schema that requires a property (results are validated).
#
#   ruby server.rb SHARED_DIR

shared = ARGV.fetch(0)
$LOAD_PATH.unshift(File.expand_path("../../lib", __dir__),
                   File.join(shared, "ruby/mcp-ruby-sdk/lib"), File.join(shared, "ruby/json_schemer/lib"))
require "json"
require "mcp"
require "toolschema/mcp"

# Proof for the client: json_schemer is never asked to validate.
JSONSchemer::Schema.prepend(Module.new { def validate(*) = raise("json_schemer called") })

tools = Dir[File.join(shared, "corpus/mcp-tools/*/*.json")].sort.map { |f| JSON.parse(File.read(f)) }
defined = tools.uniq { |t| t["name"] }.map do |t|
  MCP::Tool.define(name: t["name"], description: t["description"].to_s, input_schema: t["inputSchema"],
                   output_schema: t["outputSchema"]) do |**_arguments|
    if t["outputSchema"]
      MCP::Tool::Response.new([{ type: "text", text: "ok" }], structured_content: {})
    else
      MCP::Tool::Response.new([{ type: "text", text: "ok" }])
    end
  end
end
server = MCP::Server.new(name: "toolschema-ruby-interop", version: Toolschema::VERSION, tools: defined)
server.configuration.validate_tool_call_results = true
MCP::Server::Transports::StdioTransport.new(server).open
