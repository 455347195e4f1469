# frozen_string_literal: true

require_relative "test_helper"

# The official JSON-Schema-Test-Suite through the Ruby API, every dialect: for each case
# `valid?` (Ruby data from JSON.parse), `validate` (empty exactly when valid) and
# `valid_json?` (the same text) give the expected verdict. The optional folders assert
# formats and content. Cases not run are in suite_skip.txt, each with its reason.
class SuiteTest < Minitest::Test
  SUITE = File.join(SHARED, "JSON-Schema-Test-Suite")
  DIALECTS = {
    "draft4" => :draft4, "draft6" => :draft6, "draft7" => :draft7,
    "draft2019-09" => :draft2019_09, "draft2020-12" => :draft2020_12
  }.freeze

  SKIPS = File.readlines(File.expand_path("suite_skip.txt", __dir__))
              .map(&:strip).reject { |l| l.empty? || l.start_with?("#") }
              .to_h { |l| parts = l.split(" | "); [parts[0, 3].join(" | "), parts[3]] }

  # The suite's remotes, and the meta-schemas by their ids (as the Rust runner has them).
  def self.documents
    @documents ||= begin
      docs = Dir[File.join(SUITE, "remotes/**/*.json")].to_h do |path|
        ["http://localhost:1234/#{path.delete_prefix("#{SUITE}/remotes/")}", JSON.parse(File.read(path))]
      end
      Dir[File.join(SHARED, "metaschemas/**/*.json")].each do |path|
        doc = JSON.parse(File.read(path))
        id = doc.is_a?(Hash) && (doc["$id"] || doc["id"])
        docs[id.delete_suffix("#")] = doc if id.is_a?(String)
      end
      docs
    end
  end

  DIALECTS.each do |dir, draft|
    define_method("test_suite_#{dir.tr("-", "_")}") do
      files = Dir[File.join(SUITE, "tests", dir, "**/*.json")].sort
      refute_empty files, "no suite files for #{dir} under #{SUITE}"
      ran = 0
      failures = []
      used = []
      files.each do |file|
        name = file.delete_prefix("#{SUITE}/tests/")
        formats = name.include?("/optional/")
        JSON.parse(File.read(file)).each do |group|
          group["tests"].each do |test|
            key = [name, group["description"], test["description"]].join(" | ")
            if SKIPS.key?(key)
              used << key
              next
            end
            ran += 1
            why = check(group["schema"], test["data"], test["valid"], draft, formats)
            failures << "#{key}: #{why}" if why
          end
        end
      end
      assert ran > 100, "only #{ran} cases ran for #{dir}"
      assert_empty failures, "#{failures.size} of #{ran} cases failed:\n#{failures.first(30).join("\n")}"
    end
  end

  def test_every_skip_names_a_case_and_a_reason
    SKIPS.each do |key, reason|
      file = key.split(" | ").first
      assert File.exist?(File.join(SUITE, "tests", file)), "skip of a missing file: #{key}"
      refute_nil reason, "no reason given for #{key}"
    end
  end

  private

  def check(schema, data, expected, draft, formats)
    validator = begin
      Toolschema::Validator.new(schema, draft: draft, formats: formats, content: formats, documents: self.class.documents)
    rescue Toolschema::SchemaError => e
      return "schema refused: #{e.message[0, 200]}"
    end
    verdicts = {
      "valid?" => validator.valid?(data),
      "validate" => validator.validate(data).empty?,
      "valid_json?" => validator.valid_json?(JSON.generate(data)),
      "evaluate" => validator.evaluate(data, output: :flag)["valid"]
    }
    wrong = verdicts.reject { |_, v| v == expected }
    "expected #{expected}, got #{wrong}" unless wrong.empty?
  end
end
