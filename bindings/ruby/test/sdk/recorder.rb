# frozen_string_literal: true

# Loaded (-r) before the MCP SDK's own minitest suite: records every test's outcome as
# JSON lines in $TOOLSCHEMA_SDK_RESULTS, for run.rb to compare the two runs. With
# TOOLSCHEMA_DROP_IN=1 it also loads the drop-in (after `mcp`, as a user would).

require "json"
require "minitest"

require "mcp"
require "json_schemer"
require "toolschema/mcp" if ENV["TOOLSCHEMA_DROP_IN"] == "1"
# Proof of which validator runs: json_schemer's calls are counted (none with the drop-in).
JSONSchemer::Schema.prepend(Module.new do
  def validate(*)
    $toolschema_json_schemer_calls = ($toolschema_json_schemer_calls || 0) + 1
    super
  end
end)

module Minitest
  # Writes one JSON line per test.
  class ToolschemaRecorder < AbstractReporter
    def initialize(path)
      super()
      @out = File.open(path, "w")
    end

    def record(result)
      status = if result.skipped? then "skip" elsif result.passed? then "pass" else "fail" end
      @out.puts(JSON.generate({ "test" => "#{result.klass}##{result.name}", "status" => status,
                                "failure" => result.failure&.message.to_s[0, 300] }))
    end

    def report
      @out.puts(JSON.generate({ "json_schemer_validate_calls" => $toolschema_json_schemer_calls.to_i }))
      @out.close
    end
  end

  def self.plugin_toolschema_recorder_init(_options)
    reporter << ToolschemaRecorder.new(ENV.fetch("TOOLSCHEMA_SDK_RESULTS"))
  end
end
Minitest.extensions << "toolschema_recorder"
