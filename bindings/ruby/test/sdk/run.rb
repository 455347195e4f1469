# frozen_string_literal: true

# Runs the MCP SDK's own minitest suite (../shared/ruby/mcp-ruby-sdk, gem mcp 1.3.0) twice,
# with json_schemer (the SDK as shipped) and with `require "toolschema/mcp"`, and checks:
# every test that passes with json_schemer passes with toolschema, except those listed in
# json_schemer_stubs.txt (which must fail with toolschema and pass with json_schemer: the
# list is kept honest); the drop-in run never calls json_schemer's validate.
#
#   ruby test/sdk/run.rb [SHARED_RUBY_DIR]
#
# The SDK's test_helper needs `sorbet-runtime` (not in Debian: an empty stub is put on
# the load path) and client/http_test.rb needs `event_stream_parser` (not in Debian:
# left out), as ../shared/ruby/README.md says.

require "json"
require "tmpdir"
require "rbconfig"

# (The repository's root is four levels up; ../shared sits beside it.)
shared = if ARGV[0] then File.expand_path(ARGV[0])
         elsif ENV["TOOLSCHEMA_SHARED"] then File.join(File.expand_path(ENV["TOOLSCHEMA_SHARED"]), "ruby")
         else File.expand_path("../../../../../shared/ruby", __dir__)
         end
sdk = File.join(shared, "mcp-ruby-sdk")
abort "no MCP SDK at #{sdk}" unless File.directory?(sdk)
gem_lib = File.expand_path("../../lib", __dir__)
recorder = File.expand_path("recorder.rb", __dir__)

def run_suite(sdk, shared, gem_lib, recorder, drop_in, only = nil)
  Dir.mktmpdir("toolschema-sdk") do |tmp|
    File.write(File.join(tmp, "sorbet-runtime.rb"), "")
    results = File.join(tmp, "results.jsonl")
    env = { "TOOLSCHEMA_SDK_RESULTS" => results, "TOOLSCHEMA_DROP_IN" => drop_in ? "1" : "0" }
    cmd = [RbConfig.ruby, "-I", "lib", "-I", "test", "-I", File.join(shared, "json_schemer/lib"),
           "-I", tmp, "-I", gem_lib, "-r", recorder, "-e",
           'Dir["test/**/*_test.rb"].sort.reject { |f| f.include?("client/http_test") }.each { |f| require_relative f }']
    # (Minitest reads `-n` from ARGV, after ruby's own options end: one test, run alone.)
    cmd += ["--", "-n", "/\\A#{Regexp.escape(only)}\\z/"] if only
    output = IO.popen(env, cmd, chdir: sdk, err: %i[child out], &:read)
    abort "the SDK suite did not run:\n#{output[-3000..] || output}" unless File.exist?(results)
    summary = output.lines.grep(/\d+ runs, \d+ assertions/).last.to_s.strip
    tests = {}
    calls = nil
    File.foreach(results) do |line|
      row = JSON.parse(line)
      if row.key?("test")
        tests[row["test"]] = row
      else
        calls = row["json_schemer_validate_calls"]
      end
    end
    [tests, summary, calls]
  end
end

stubs = File.readlines(File.expand_path("json_schemer_stubs.txt", __dir__))
            .map(&:strip).reject { |l| l.empty? || l.start_with?("#") }
            .to_h { |l| l.split(" -- ", 2) }

# A test that passes with json_schemer and fails with the drop-in is run again alone with
# the drop-in, up to RERUNS times: it counts as a regression only if it fails every time.
RERUNS = 3

def ours_alone_passes?(sdk, shared, gem_lib, recorder, name)
  tests, = run_suite(sdk, shared, gem_lib, recorder, true, name)
  tests.dig(name, "status") == "pass"
end

base, base_summary, base_calls = run_suite(sdk, shared, gem_lib, recorder, false)
ours, our_summary, our_calls = run_suite(sdk, shared, gem_lib, recorder, true)
puts "json_schemer: #{base_summary} (json_schemer validate calls: #{base_calls})"
puts "toolschema:   #{our_summary} (json_schemer validate calls: #{our_calls})"

problems = []
problems << "the two runs ran different tests" unless base.keys.sort == ours.keys.sort
problems << "the baseline run never called json_schemer: the count proves nothing" unless base_calls.to_i.positive?
problems << "the drop-in run called json_schemer #{our_calls} times" unless our_calls.to_i.zero?
base.each do |name, row|
  next unless row["status"] == "pass"
  next if ours.dig(name, "status") == "pass"

  if stubs.key?(name)
    puts "expected (mocks json_schemer): #{name}"
  elsif (tries = RERUNS.times.find { ours_alone_passes?(sdk, shared, gem_lib, recorder, name) })
    # A few SDK tests count threads or wait on timers and fail now and then on a loaded
    # machine whichever validator runs; a real regression fails every time it runs.
    puts "flaky, passed with toolschema when run alone (rerun #{tries + 1}): #{name}: #{ours.dig(name, "failure").to_s.lines.first&.strip}"
  else
    problems << "passes with json_schemer, not with toolschema: #{name}: #{ours.dig(name, "failure")}"
  end
end
stubs.each_key do |name|
  problems << "listed in json_schemer_stubs.txt but not failing only with toolschema: #{name}" unless
    base.dig(name, "status") == "pass" && ours.dig(name, "status") == "fail"
end
fixed = base.select { |n, r| r["status"] != "pass" && ours.dig(n, "status") == "pass" }.keys
puts "failing with json_schemer, passing with toolschema: #{fixed.join(", ")}" unless fixed.empty?
unchanged = base.count { |n, r| r["status"] == "fail" && ours.dig(n, "status") == "fail" }
puts "baseline failures unrelated to schemas, unchanged: #{unchanged}"

if problems.empty?
  puts "OK: every test passing with json_schemer passes with toolschema (#{stubs.size} listed stubs of json_schemer aside)"
else
  puts problems
  exit 1
end
