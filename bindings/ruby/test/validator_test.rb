# frozen_string_literal: true

require_relative "test_helper"

# The Ruby API: construction, the four ways to validate, errors, standard output.
class ValidatorTest < Minitest::Test
  SCHEMA = {
    type: "object",
    properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", maximum: 14 } },
    required: ["city"],
    additionalProperties: false
  }.freeze

  def setup
    @v = Toolschema::Validator.new(SCHEMA)
  end

  def test_schema_as_hash_with_string_or_symbol_keys_or_json_text
    [SCHEMA, JSON.parse(JSON.generate(SCHEMA)), JSON.generate(SCHEMA)].each do |schema|
      v = Toolschema::Validator.new(schema)
      assert v.valid?({ "city" => "Paris" })
      refute v.valid?({ "city" => "" })
    end
  end

  def test_data_with_string_or_symbol_keys_and_symbol_values
    assert @v.valid?({ city: "Paris", days: 3 })
    assert @v.valid?({ "city" => :Paris })
    refute @v.valid?({ city: "Paris", days: 15 })
    refute @v.valid?({ city: "Paris", extra: 1 })
  end

  def test_validate_lists_errors_with_locations_and_never_a_value
    secret = "s3cr3t-value-#{rand(1_000_000)}"
    errors = @v.validate({ "city" => 12, "days" => 99.5, secret => secret })
    assert_equal(%w[/city /days], errors.map(&:instance_location).reject { |l| l.include?("s3cr3t") }.uniq.sort)
    kinds = errors.map(&:kind)
    assert_includes kinds, :type
    assert_includes kinds, :additionalProperties
    errors.each do |e|
      assert_kind_of Toolschema::Error, e
      assert e.frozen?
      refute_includes e.message, secret
      refute_includes e.message, "99.5"
      assert e.keyword_location.start_with?("/")
    end
    assert_equal [], @v.validate({ city: "Oslo" })
  end

  def test_validate_bang_raises_with_every_error
    assert_nil @v.validate!({ city: "Oslo" })
    error = assert_raises(Toolschema::ValidationError) { @v.validate!({ days: 20 }) }
    assert_equal 2, error.errors.size
    assert_includes error.message, "/days"
  end

  def test_valid_json_and_validate_json_agree_with_ruby_data
    ["{\"city\":\"Paris\"}", "{\"city\":1}", "[]", "{\"city\":\"x\",\"days\":15}"].each do |text|
      data = JSON.parse(text)
      assert_equal @v.valid?(data), @v.valid_json?(text), text
      assert_equal @v.validate(data).map(&:to_h), @v.validate_json(text).map(&:to_h), text
    end
  end

  def test_valid_json_on_a_long_text_releases_the_gvl_and_still_answers
    text = JSON.generate({ city: "x" * 100_000 })
    assert @v.valid_json?(text)
    counter = 0
    ticker = Thread.new { loop { counter += 1; Thread.pass } }
    200.times { assert @v.valid_json?(text) }
    ticker.kill
    assert counter.positive?
  end

  def test_malformed_json_is_a_parse_error_naming_where_not_what
    error = assert_raises(Toolschema::ParseError) { @v.valid_json?("{\"city\": \"se") }
    assert_kind_of ArgumentError, error
    assert_equal 1, error.line
    refute_includes error.message, "se\""
    assert_raises(Toolschema::ParseError) { @v.validate_json("[1,]") }
    assert_raises(TypeError) { @v.valid_json?(42) }
  end

  def test_evaluate_gives_the_standard_output_formats
    assert_equal({ "valid" => false }, @v.evaluate({ days: 1 }, output: :flag))
    basic = @v.evaluate({ days: 1 })
    refute basic["valid"]
    assert_equal ["/required"], basic["errors"].map { |e| e["keywordLocation"] }
    assert @v.evaluate({ city: "a" }, output: :detailed)["valid"]
    assert @v.evaluate({ city: "a" }, output: :verbose)["valid"]
    assert_raises(ArgumentError) { @v.evaluate({}, output: :json) }
  end

  def test_bad_schemas_raise_schema_error_naming_the_keyword_location
    error = assert_raises(Toolschema::SchemaError) do
      Toolschema::Validator.new({ properties: { a: { type: "strin" }, b: { minLength: -1 } } })
    end
    assert_kind_of ArgumentError, error
    assert_equal :meta_schema_violation, error.kind
    assert_equal %w[/properties/a/type /properties/b/minLength], error.violations.map(&:location)
    assert_includes error.message, "/properties/a/type"

    error = assert_raises(Toolschema::SchemaError) { Toolschema::Validator.new({ pattern: "(" }) }
    assert_equal "/pattern", error.location
    error = assert_raises(Toolschema::SchemaError) { Toolschema::Validator.new("{not json") }
    assert_equal :malformed_json, error.kind
  end

  def test_options
    refute Toolschema::Validator.new({ format: "email" }, formats: true).valid?("nope")
    assert Toolschema::Validator.new({ format: "email" }).valid?("nope")
    ref = { properties: { a: { "$ref": "https://example.com/a" } } }
    error = assert_raises(Toolschema::SchemaError) { Toolschema::Validator.new(ref, same_document_refs: true) }
    assert_equal :forbidden_reference, error.kind
    assert_equal "/properties/a/$ref", error.location
    deep = { type: "string" }
    40.times { deep = { properties: { a: deep } } }
    assert_equal :depth_exceeded, assert_raises(Toolschema::SchemaError) { Toolschema::Validator.new(deep) }.kind
    assert Toolschema::Validator.new(deep, max_depth: 200).valid?({})
    wide = { properties: (1..20).to_h { |i| ["p#{i}", {}] } }
    assert_equal :too_many_subschemas,
                 assert_raises(Toolschema::SchemaError) { Toolschema::Validator.new(wide, max_subschemas: 5) }.kind
    assert Toolschema::Validator.new({ maximum: 3 }, draft: :draft4).valid?(3)
    refute Toolschema::Validator.new({ maximum: 3, exclusiveMaximum: true }, draft: :draft4).valid?(3)
    assert_raises(ArgumentError) { Toolschema::Validator.new({}, draft: :draft3) }
    assert_raises(ArgumentError) { Toolschema::Validator.new({}, max_depth: 0) }
  end

  def test_integers_of_any_size_and_floats
    v = Toolschema::Validator.new({ type: "integer", maximum: 18_446_744_073_709_551_615 })
    assert v.valid?(18_446_744_073_709_551_615)
    refute v.valid?(18_446_744_073_709_551_616)
    assert v.valid?(-(2**63))
    assert v.valid?(-(2**200))
    assert v.valid?(3.0)
    refute v.valid?(3.5)
    assert_equal v.valid?(12_345_678_910_111_213_141_516_171_819_202_122), v.valid_json?("12345678910111213141516171819202122")
    assert Toolschema::Validator.new({ const: 1 }).valid?(1.0)
  end

  def test_repeated_names_keep_the_last_value_as_json_does
    v = Toolschema::Validator.new({ properties: { a: { type: "integer" } } })
    assert v.valid?({ "a" => "x", a: 1 })
    refute v.valid?({ a: 1, "a" => "x" })
    assert_equal v.valid?({ a: 1, "a" => "x" }), v.valid_json?(JSON.generate({ a: 1, "a" => "x" }))
  end

  def test_large_objects_are_looked_up_by_name
    schema = { required: (0...100).map { |i| "k#{i}" }, properties: { k50: { const: 50 } } }
    v = Toolschema::Validator.new(schema)
    data = (0...100).to_h { |i| ["k#{i}", i] }
    assert v.valid?(data)
    refute v.valid?(data.merge("k50" => 49))
    refute v.valid?(data.except("k99"))
  end

  def test_validators_are_frozen_and_shared_across_threads
    assert @v.frozen?
    results = 8.times.map do |i|
      Thread.new { 500.times.map { @v.valid?({ city: "c#{i}", days: i }) }.all? }
    end.map(&:value)
    assert_equal [true] * 8, results
    return unless defined?(Ractor)

    assert Ractor.shareable?(@v)
    experimental = Warning[:experimental]
    Warning[:experimental] = false
    ractors = 2.times.map { |i| Ractor.new(@v, i) { |v, n| [v.valid?({ "city" => "r#{n}" }), v.validate({ "days" => n }).map(&:to_s)] } }
    assert_equal [[true, ["/: missing required property \"city\""]]] * 2, ractors.map(&:take)
  ensure
    Warning[:experimental] = experimental unless experimental.nil?
  end
end
