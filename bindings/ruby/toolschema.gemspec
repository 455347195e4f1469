# frozen_string_literal: true

require_relative "lib/toolschema/version"

Gem::Specification.new do |spec|
  spec.name = "toolschema"
  spec.version = Toolschema::VERSION
  spec.authors = ["toolschema contributors"]
  spec.summary = "A fast, redaction-safe JSON Schema validator for MCP tool schemas (native, Rust)"
  spec.description = <<~TEXT
    JSON Schema 2020-12, 2019-09, draft-07/06/04 validation by the toolschema engine,
    reading Ruby data in place. `require "toolschema/mcp"` makes the official MCP SDK
    (gem `mcp`) validate tool schemas, arguments and results with it.
  TEXT
  spec.homepage = "https://github.com/toolschema/toolschema"
  spec.licenses = ["MIT", "Apache-2.0"]
  spec.required_ruby_version = ">= 3.1"

  spec.files = Dir[
    "lib/**/*.rb", "sig/**/*.rbs", "ext/toolschema/{Cargo.toml,extconf.rb}",
    "ext/toolschema/src/**/*.rs", "README.md", "toolschema.gemspec"
  ]
  spec.require_paths = ["lib"]
  spec.extensions = ["ext/toolschema/extconf.rb"]
  spec.metadata["rubygems_mfa_required"] = "true"

  spec.add_dependency "rb_sys", "~> 0.9"
end
