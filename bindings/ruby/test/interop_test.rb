# frozen_string_literal: true

require_relative "test_helper"
require "open3"
require "rbconfig"

# A real client against a real server: the official Python MCP SDK client (the .venv
# that .ci/run installs, or $TOOLSCHEMA_MCP_PYTHON) drives, over stdio, an MCP::Server of
# the Ruby SDK that validates with toolschema and serves the corpus tools
# (test/interop/client.py says what is checked).
class InteropTest < Minitest::Test
  ROOT = File.expand_path("../../..", __dir__)

  def python
    ENV["TOOLSCHEMA_MCP_PYTHON"] || File.join(ROOT, ".venv/bin/python")
  end

  def test_python_sdk_client_against_a_ruby_sdk_server
    assert File.executable?(python),
           "no Python with the MCP SDK at #{python}: run .ci/run (it installs one) or set TOOLSCHEMA_MCP_PYTHON"
    interop = File.expand_path("interop", __dir__)
    out, status = Open3.capture2e(python, File.join(interop, "client.py"), RbConfig.ruby,
                                  File.join(interop, "server.rb"), SHARED)
    assert status.success?, out
    assert_match(/^6 passed, 0 failed$/, out)
  end
end
