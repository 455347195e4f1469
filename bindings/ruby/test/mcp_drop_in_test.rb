# frozen_string_literal: true

require_relative "test_helper"
$LOAD_PATH.unshift(SDK_LIB, JSON_SCHEMER_LIB)
require "mcp"
require "toolschema/mcp"

# The drop-in under the SDK's public API: the checks the SDK's own suite makes through
# json_schemer mocks (json_schemer_stubs.txt), made here through toolschema; and a
# server's tools/call with tools from ../shared/corpus/mcp-tools.
class McpDropInTest < Minitest::Test
  Tool = MCP::Tool

  def test_schema_classes_use_toolschema
    schema = Tool::InputSchema.new(properties: { foo: { type: "string" } }, required: ["foo"])
    assert_kind_of Toolschema::Validator, schema.toolschema_validator
    assert_nil schema.validate_arguments(foo: "bar")
    error = assert_raises(Tool::InputSchema::ValidationError) { schema.validate_arguments(foo: 12_345) }
    assert_match(%r{\AInvalid arguments: /foo: }, error.message)
    refute_includes error.message, "12345"
    error = assert_raises(Tool::OutputSchema::ValidationError) do
      Tool::OutputSchema.new(type: "array", items: { type: "integer" }).validate_result([1, "secret"])
    end
    assert_equal "Invalid result: /1: must be integer, not string", error.message
  end

  def test_unexpected_errors_bubble_up
    schema = Tool::InputSchema.new(properties: { foo: { type: "string" } })
    output = Tool::OutputSchema.new(properties: { foo: { type: "string" } })
    validator_class = Toolschema::Validator
    validator_class.alias_method(:__orig_validate, :validate)
    validator_class.define_method(:validate) { |_| raise "unexpected error" }
    assert_raises(RuntimeError) { schema.validate_arguments(foo: "bar") }
    assert_raises(RuntimeError) { output.validate_result(foo: "bar") }
  ensure
    validator_class.alias_method(:validate, :__orig_validate)
    validator_class.remove_method(:__orig_validate)
  end

  def test_meta_schema_checked_at_construction
    error = assert_raises(ArgumentError) { Tool::InputSchema.new(properties: { a: { type: "strin" } }) }
    assert_match(%r{\AInvalid JSON Schema: .*/properties/a/type}, error.message)
    # The SDK validates against 2020-12 whatever `$schema` says.
    assert Tool::InputSchema.new("$schema": "http://json-schema.org/draft-07/schema#", properties: { a: { "$defs": {} } })
    error = assert_raises(ArgumentError) { Tool::InputSchema.new(properties: { a: { minLength: -1 } }) }
    assert_kind_of Toolschema::SchemaError, error
  end

  def test_sdk_caps_and_reference_rule_with_the_sdks_words
    deep = { type: "string" }
    33.times { deep = { type: "object", properties: { child: deep } } }
    assert_match(/maximum depth of 64/, assert_raises(ArgumentError) { Tool::InputSchema.new(deep) }.message)
    props = (0..10_000).to_h { |i| [:"p#{i}", { type: "string" }] }
    assert_match(/maximum of 10000 subschema/, assert_raises(ArgumentError) { Tool::InputSchema.new(properties: props) }.message)
    error = assert_raises(ArgumentError) { Tool::InputSchema.new(properties: { a: { "$dynamicRef": "https://x.example/s#m" } }) }
    assert_match(/same-document \$dynamicRef/, error.message)
    assert Tool::InputSchema.new("$defs": { b: { type: "string" } }, properties: { a: { "$ref": "#/$defs/b" } })
    # Output schemas may have any root (SEP-2106); input schemas default to an object.
    assert_nil Tool::OutputSchema.new(type: "array").validate_result([1])
    assert_raises(Tool::InputSchema::ValidationError) { Tool::InputSchema.new({}).validate_arguments([]) }
  end

  def test_results_that_are_not_json_data_are_validated_as_sent
    output = Tool::OutputSchema.new(properties: { at: { type: "string" } })
    assert_nil output.validate_result(at: Time.at(0).utc)
  end

  def corpus_tools
    Dir[File.join(SHARED, "corpus/mcp-tools/*/*.json")].sort.map { |f| JSON.parse(File.read(f)) }
  end

  def test_server_tools_call_with_corpus_tools
    tools = corpus_tools
    assert_equal 253, tools.size
    with_output = tools.find { |t| t.dig("outputSchema", "required")&.any? }
    defined = tools.map do |t|
      Tool.define(name: t["name"], description: t["description"], input_schema: t["inputSchema"],
                  output_schema: t["outputSchema"]) do |**_args|
        Tool::Response.new([{ type: "text", text: "ok" }], structured_content: {})
      end
    end
    server = MCP::Server.new(name: "corpus", tools: defined.uniq(&:name_value))
    server.configuration.validate_tool_call_results = true
    reported = []
    server.configuration.exception_reporter = ->(e, _context) { reported << e }
    target = tools.find { |t| t["name"] == "create_or_update_file" }
    call = lambda do |name, args|
      server.handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: name, arguments: args } })
    end
    ok = call.(target["name"], { owner: "o", repo: "r", path: "p", content: "c", message: "m", branch: "b" })
    refute ok.dig(:result, :isError), ok.inspect
    bad = call.(target["name"], { owner: "o", repo: "r", path: "p", content: 42, message: "m", branch: "SECRET-BRANCH" })
    text = bad.dig(:result, :content, 0, :text).to_s
    assert bad.dig(:result, :isError), bad.inspect
    assert_includes text, "Invalid arguments"
    assert_includes text, "/content"
    refute_includes text, "SECRET-BRANCH"
    result = call.(with_output["name"], minimal_arguments(with_output["inputSchema"]))
    # The SDK answers an internal error and reports the original exception.
    assert_equal(-32_603, result.dig(:error, :code), result.inspect)
    original = reported.map { |e| e.respond_to?(:original_error) && e.original_error ? e.original_error : e }
    caught = original.find { |e| e.is_a?(Tool::OutputSchema::ValidationError) }
    refute_nil caught, "a result breaking its output schema was not caught: #{reported.inspect}"
    assert_match(/\AInvalid result: /, caught.message)
  end

  def minimal_arguments(schema)
    (schema["required"] || []).to_h do |name|
      type = schema.dig("properties", name, "type")
      [name, { "string" => "x", "integer" => 1, "number" => 1, "boolean" => true, "array" => [], "object" => {} }.fetch(type, "x")]
    end
  end
end
