# frozen_string_literal: true

require_relative "test_helper"

# Hostile Ruby values get an exception (or a verdict), never a crash or a hang; the same
# again under GC.stress, where any Ruby allocation while the extension borrows a string
# would show.
class HostileTest < Minitest::Test
  def setup
    @v = Toolschema::Validator.new({ type: "object", properties: { s: { type: "string", maxLength: 5 } } })
    @any = Toolschema::Validator.new({})
  end

  def nested(levels)
    root = []
    cur = root
    (levels - 1).times do
      nxt = []
      cur << nxt
      cur = nxt
    end
    root
  end

  def test_hundred_thousand_levels_of_nesting
    deep = nested(100_000)
    error = assert_raises(ArgumentError) { @any.valid?(deep) }
    assert_match(/deeper than 127 levels/, error.message)
    assert_raises(ArgumentError) { @any.validate(deep) }
    assert_raises(Toolschema::ParseError) { @any.valid_json?("[" * 100_000 + "]" * 100_000) }
    hashes = {}
    cur = hashes
    100_000.times { cur = (cur["a"] = {}) }
    assert_raises(ArgumentError) { @any.valid?(hashes) }
    schema = {}
    cur = schema
    100_000.times { cur = (cur[:not] = {}) }
    assert_raises(Toolschema::SchemaError) { Toolschema::Validator.new(schema) }
  end

  def test_the_deepest_data_read_is_the_deepest_text_read
    assert @any.valid?(nested(127))
    assert @any.valid_json?(JSON.generate(nested(127), max_nesting: false))
    assert_raises(ArgumentError) { @any.valid?(nested(128)) }
    assert_raises(Toolschema::ParseError) { @any.valid_json?(JSON.generate(nested(128), max_nesting: false)) }
  end

  def test_cycles_raise_type_error_naming_where_they_close
    h = { "a" => [1] }
    h["a"] << h
    error = assert_raises(TypeError) { @v.valid?(h) }
    assert_match(%r{cyclic structure .* at /a/1\z}, error.message)
    a = []
    a << a
    assert_raises(TypeError) { @any.validate(a) }
    assert_raises(TypeError) { Toolschema::Validator.new(h) }
  end

  def test_a_ten_megabyte_string
    big = "x" * 10_000_000
    refute @v.valid?({ s: big })
    assert @any.valid?(big)
    assert_equal ["/s"], @v.validate({ s: big }).map(&:instance_location)
    refute @v.valid_json?(JSON.generate({ s: big }))
  end

  def test_huge_integers
    assert @any.valid?(2**1000)
    error = assert_raises(TypeError) { @any.valid?({ "n" => 2**100_000 }) }
    assert_match(%r{Integer past the range of JSON numbers .* at /n\z}, error.message)
    assert_raises(TypeError) { @any.valid?(-(10**400)) }
    assert_raises(TypeError) { @any.valid?(Float::INFINITY) }
    assert_raises(TypeError) { @any.valid?([Float::NAN]) }
  end

  def test_invalid_utf8_and_other_encodings
    error = assert_raises(TypeError) { @v.valid?({ "s" => "\xff\xfe".dup.force_encoding("UTF-8") }) }
    assert_match(%r{not valid UTF-8 at /s}, error.message)
    assert_raises(TypeError) { @any.valid?({ "\xff".dup.force_encoding("UTF-8") => 1 }) }
    assert_raises(TypeError) { @any.valid?("\xff".b) }
    assert @any.valid?("caf\u00e9".b) # binary holding UTF-8
    assert_raises(TypeError) { @any.valid?("caf\u00e9".encode("UTF-16LE")) }
    assert @any.valid?("plain".encode("ISO-8859-1"))
  end

  # Subclasses are read by their contents: methods they override are never called.
  class SneakyHash < Hash
    def each(*) = raise("each called")
    def [](*) = raise("[] called")
    def keys = raise("keys called")
    def to_hash = raise("to_hash called")
    def size = raise("size called")
  end

  class SneakyString < String
    def to_s = raise("to_s called")
    def to_str = raise("to_str called")
    def bytesize = raise("bytesize called")
  end

  class SneakyArray < Array
    def each(*) = raise("each called")
    def [](*) = raise("[] called")
  end

  def test_subclasses_of_hash_string_and_array
    h = SneakyHash.new
    h.store("s", SneakyString.new("abcdefgh"))
    refute @v.valid?(h)
    assert_equal ["/s"], @v.validate(h).map(&:instance_location)
    assert @v.valid?(SneakyHash.new.tap { |x| x.store("s", SneakyString.new("ab")) })
    assert @any.valid?(SneakyArray.new([1, 2]))
  end

  def test_non_json_values_raise_type_error_naming_the_location
    [Time.now, Object.new, 1r, 1i, (1..2), Struct.new(:a).new(1), Class.new.new, -> {}, $stdout].each do |bad|
      error = assert_raises(TypeError, bad.class.to_s) { @any.valid?({ "list" => [0, { "x" => bad }] }) }
      assert_match(%r{at /list/1/x}, error.message)
    end
    error = assert_raises(TypeError) { @any.valid?({ 1 => 2 }) }
    assert_match(/Hash key of class Integer/, error.message)
    assert_raises(TypeError) { @any.valid?({ nil => 2 }) }
  end

  def test_under_gc_stress
    h = { "s" => "abcdefgh", "t" => :sym, "n" => 2**70, "list" => [1.5, nil, true, "x" * 40] }
    h["cycle"] = [h]
    data = h.reject { |k, _| k == "cycle" }
    GC.stress = true
    begin
      refute @v.valid?(data)
      assert_equal ["/s"], @v.validate(data).map(&:instance_location)
      refute @v.evaluate(data)["valid"]
      assert_raises(TypeError) { @v.valid?(h) }
      assert_raises(TypeError) { @v.valid?({ "s" => Time.now }) }
      assert_raises(TypeError) { @v.valid?({ "s" => "\xff".dup.force_encoding("UTF-8") }) }
      assert_raises(Toolschema::SchemaError) { Toolschema::Validator.new({ type: "strin" }) }
      assert_raises(Toolschema::ParseError) { @v.valid_json?("{") }
      refute @v.valid_json?(JSON.generate(data))
    ensure
      GC.stress = false
    end
  end

  # With compaction on, a GC can move objects: the extension allocates nothing while it
  # borrows strings, and names a bad value's class only once it has stopped reading.
  def test_under_gc_stress_with_auto_compaction
    skip "GC.auto_compact is not available" unless GC.respond_to?(:auto_compact=)
    keys = (1..20).map { |i| "key-#{i}-#{"k" * i}" }
    data = keys.to_h { |k| [k, { "s" => "v" * 30, "list" => [k, k * 2] }] }
    bad = data.merge("z" => { "deep" => [Time.now] })
    GC.auto_compact = true
    GC.stress = true # a GC at every allocation; major ones compact
    begin
      assert @any.valid?(data)
      error = assert_raises(TypeError) { @any.valid?(bad) }
      assert_match(%r{Time is not JSON data at /z/deep/0}, error.message)
      error = assert_raises(TypeError) { @any.valid?(data.merge(Object.new => 1)) }
      assert_match(/Hash key of class Object/, error.message)
    ensure
      GC.stress = false
      GC.auto_compact = false
    end
  end

  def test_gc_compaction_between_calls
    skip "GC.compact is not available" unless GC.respond_to?(:compact)
    data = { "s" => "abc", "t" => "y" * 50 }
    50.times do
      GC.compact
      assert @v.valid?(data)
    end
  end
end
