# frozen_string_literal: true

# The native extension, built by cargo through rb_sys (where RubyGems can install it);
# `rake compile` builds it without rb_sys too (see the Rakefile).
require "mkmf"
require "rb_sys/mkmf"

create_rust_makefile("toolschema/toolschema_ruby")
