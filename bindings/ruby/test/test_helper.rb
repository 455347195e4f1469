# frozen_string_literal: true

require "minitest/autorun"
require "json"
require "toolschema"

# ../shared beside the repository (the official suite, corpora, the MCP SDK).
SHARED = File.expand_path(ENV.fetch("TOOLSCHEMA_SHARED", "../../../../shared"), __dir__)

# The MCP SDK (gem mcp 1.3.0) and json_schemer 2.4.0 from ../shared/ruby, for the drop-in.
SDK_LIB = File.join(SHARED, "ruby/mcp-ruby-sdk/lib")
JSON_SCHEMER_LIB = File.join(SHARED, "ruby/json_schemer/lib")
