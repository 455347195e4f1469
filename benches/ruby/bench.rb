# frozen_string_literal: true

# toolschema (the gem) against json_schemer 2.4.0 (what the MCP SDK validates with) and
# the json-schema gem (Debian's ruby-json-schema; what model-context-protocol-rb validates
# with; draft-04 and draft-06 only), side by side in one run, as ratios.
#
#   (cd bindings/ruby && rake compile) && ruby benches/ruby/bench.rb [SHARED_DIR]
#
# Measures, on ../shared/bench/corpus and the MCP tool sources (../shared/corpus/mcp-tools):
#   construction  the schema compiled with its meta-schema check (json_schemer: schema +
#                 validate_schema; toolschema: Validator.new, which checks the caps too)
#   objects       validation of Ruby data (JSON.parse'd once, outside the timing)
#   text          validation of JSON text (json_schemer: JSON.parse + valid?;
#                 toolschema: valid_json?)
#   SDK           MCP::Tool::InputSchema#validate_arguments per call and a whole
#                 tools/call through MCP::Server#handle, without and with the drop-in
#                 (each in a child process: the drop-in cannot be unloaded)
# Formats are annotations everywhere (json_schemer with format: false, as the SDK). The
# corpus schemas are compiled with caps raised (some hold more than 10,000 subschemas);
# the MCP tool schemas with the defaults (the SDK's caps).
# Each figure is the best of 3 timings of a loop lasting at least 0.1 s (one pass at
# least). Each case's first 20 instances are used (json_schemer takes seconds per pass
# over the larger cases); a schema json_schemer cannot load (a pattern Ruby's Regexp
# refuses) is reported and left out of the ratios.

require "json"
require "rbconfig"

ROOT = File.expand_path("../..", __dir__)
SHARED = File.expand_path(ARGV[0] || ENV["TOOLSCHEMA_SHARED"] || File.join(ROOT, "../shared"))
$LOAD_PATH.unshift(File.join(ROOT, "bindings/ruby/lib"), File.join(SHARED, "ruby/json_schemer/lib"),
                   File.join(SHARED, "ruby/mcp-ruby-sdk/lib"))

def best(min_time = 0.1)
  (1..3).map do
    n = 0
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    elapsed = 0.0
    while elapsed < min_time || n.zero?
      yield
      n += 1
      elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
    end
    elapsed / n
  end.min
end

def geomean(xs) = Math.exp(xs.sum { |x| Math.log(x) } / xs.size)

def tools
  Dir[File.join(SHARED, "corpus/mcp-tools/*/*.json")].sort.map { |f| JSON.parse(File.read(f)) }
end

# Arguments a client would typically send: every required property, a plain value of its type.
def typical_arguments(schema)
  sample = { "string" => "x", "integer" => 1, "number" => 1.5, "boolean" => true, "array" => [], "object" => {} }
  (schema["required"] || []).to_h do |name|
    type = schema.dig("properties", name, "type")
    type = type.first if type.is_a?(Array)
    [name, sample.fetch(type, "x")]
  end
end

# --- the SDK path, in a child process --------------------------------------------------
if ENV["TOOLSCHEMA_BENCH_SDK"]
  require "mcp"
  require "toolschema/mcp" if ENV["TOOLSCHEMA_BENCH_SDK"] == "toolschema"
  schemas = tools.map { |t| [MCP::Tool::InputSchema.new(t["inputSchema"]), typical_arguments(t["inputSchema"])] }
  schemas.select! do |schema, args|
    schema.validate_arguments(args)
    true
  rescue MCP::Tool::InputSchema::ValidationError
    false
  end
  per_call = best(0.5) { schemas.each { |schema, args| schema.validate_arguments(args) } } / schemas.size
  tool_def = tools.find { |t| t["name"] == "create_or_update_file" }
  tool = MCP::Tool.define(name: tool_def["name"], input_schema: tool_def["inputSchema"]) do |**|
    MCP::Tool::Response.new([{ type: "text", text: "ok" }])
  end
  server = MCP::Server.new(name: "bench", tools: [tool])
  request = { jsonrpc: "2.0", id: 1, method: "tools/call",
              params: { name: tool_def["name"], arguments: typical_arguments(tool_def["inputSchema"]) } }
  raise "tools/call failed" if server.handle(request)[:result][:isError]

  call = best(0.5) { server.handle(request) }
  puts JSON.generate({ "validate_arguments" => per_call, "tools_call" => call, "tools" => schemas.size })
  exit
end

require "json_schemer"
require "toolschema"
begin
  require "json-schema"
rescue LoadError
  warn "the json-schema gem is missing (apt-get install ruby-json-schema): its column is left out"
end

cases = Dir[File.join(SHARED, "bench/corpus/*/schema.json")].sort.map do |path|
  dir = File.dirname(path)
  lines = File.readlines(File.join(dir, "instances.jsonl"), chomp: true).reject(&:empty?).first(20)
  { name: File.basename(dir), schema: JSON.parse(File.read(path)), texts: lines, data: lines.map { |l| JSON.parse(l) } }
end

CORPUS_CAPS = { max_depth: 1000, max_subschemas: 1_000_000 }.freeze
rows = []
cases.each do |c|
  ts = Toolschema::Validator.new(c[:schema], **CORPUS_CAPS)
  js = begin
    JSONSchemer.schema(c[:schema], format: false).tap { |s| s.valid?(c[:data].first) }
  rescue RegexpError => e
    puts "#{c[:name]}: json_schemer cannot load the schema (#{e.class}: #{e.message[0, 80]}); left out"
    next
  end
  verdicts = c[:data].map { |d| ts.valid?(d) }
  if verdicts != c[:data].map { |d| js.valid?(d) }
    warn "#{c[:name]}: the two disagree on some instance (compared anyway)"
  end
  row = { name: c[:name], n: c[:data].size }
  row[:build_js] = best { s = JSONSchemer.schema(c[:schema], format: false); s.validate_schema.to_a }
  row[:build_ts] = best { Toolschema::Validator.new(c[:schema], **CORPUS_CAPS) }
  row[:obj_js] = best { c[:data].each { |d| js.valid?(d) } }
  row[:obj_ts] = best { c[:data].each { |d| ts.valid?(d) } }
  row[:text_js] = best { c[:texts].each { |t| js.valid?(JSON.parse(t)) } }
  row[:text_ts] = best { c[:texts].each { |t| ts.valid_json?(t) } }
  rows << row
  $stderr.print "."
end
$stderr.puts

# The MCP tool sources: every input schema, and its typical arguments.
mcp = tools.map { |t| t["inputSchema"] }
args = tools.map { |t| typical_arguments(t["inputSchema"]) }
mcp_ts = mcp.map { |s| Toolschema::Validator.new(s) }
mcp_js = mcp.map { |s| JSONSchemer.schema(s, format: false) }
mrow = { name: "mcp-tools (253 input schemas)", n: mcp.size }
mrow[:build_js] = best { mcp.each { |s| JSONSchemer.schema(s, format: false).validate_schema.to_a } }
mrow[:build_ts] = best { mcp.each { |s| Toolschema::Validator.new(s) } }
mrow[:obj_js] = best { mcp_js.zip(args).each { |v, a| v.valid?(a) } }
mrow[:obj_ts] = best { mcp_ts.zip(args).each { |v, a| v.valid?(a) } }
texts = args.map { |a| JSON.generate(a) }
mrow[:text_js] = best { mcp_js.zip(texts).each { |v, t| v.valid?(JSON.parse(t)) } }
mrow[:text_ts] = best { mcp_ts.zip(texts).each { |v, t| v.valid_json?(t) } }
if defined?(JSON::Validator)
  # json-schema reads a schema without $schema as draft-04: the MCP tool schemas mostly are.
  mrow[:obj_jg] = best { mcp.zip(args).each { |s, a| JSON::Validator.validate(s, a) } }
end
rows << mrow

def us(seconds) = format("%.1f", seconds * 1e6)

puts "| case | instances | construction json_schemer / toolschema (µs) | × | objects json_schemer / toolschema (µs) | × | text json_schemer / toolschema (µs) | × |"
puts "|---|---:|---:|---:|---:|---:|---:|---:|"
rows.each do |r|
  puts "| #{r[:name]} | #{r[:n]} | #{us(r[:build_js])} / #{us(r[:build_ts])} | #{format("%.1f", r[:build_js] / r[:build_ts])} | " \
       "#{us(r[:obj_js])} / #{us(r[:obj_ts])} | #{format("%.1f", r[:obj_js] / r[:obj_ts])} | " \
       "#{us(r[:text_js])} / #{us(r[:text_ts])} | #{format("%.1f", r[:text_js] / r[:text_ts])} |"
end
g = ->(a, b) { geomean(rows.map { |r| r[a] / r[b] }) }
puts
puts "Geomean over #{rows.size} cases, toolschema vs json_schemer: construction #{format("%.1f", g.(:build_js, :build_ts))}×, " \
     "objects #{format("%.1f", g.(:obj_js, :obj_ts))}×, text #{format("%.1f", g.(:text_js, :text_ts))}×"
if mrow[:obj_jg]
  puts "json-schema gem (draft-04 reading of the 253 MCP input schemas, typical arguments): " \
       "#{us(mrow[:obj_jg] / mcp.size)} µs per call, toolschema #{us(mrow[:obj_ts] / mcp.size)} µs: " \
       "#{format("%.1f", mrow[:obj_jg] / mrow[:obj_ts])}×"
end

sdk = %w[json_schemer toolschema].to_h do |which|
  out = IO.popen({ "TOOLSCHEMA_BENCH_SDK" => which }, [RbConfig.ruby, __FILE__, SHARED], &:read)
  [which, JSON.parse(out.lines.last)]
end
puts
puts "MCP SDK 1.3.0 (#{sdk["toolschema"]["tools"]} tools with typical arguments): " \
     "InputSchema#validate_arguments #{us(sdk["json_schemer"]["validate_arguments"])} µs -> " \
     "#{us(sdk["toolschema"]["validate_arguments"])} µs with the drop-in " \
     "(#{format("%.1f", sdk["json_schemer"]["validate_arguments"] / sdk["toolschema"]["validate_arguments"])}×); " \
     "tools/call through MCP::Server#handle #{us(sdk["json_schemer"]["tools_call"])} µs -> " \
     "#{us(sdk["toolschema"]["tools_call"])} µs"
