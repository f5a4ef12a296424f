# Records Rails 6.1's actual behaviour for the conformance scenarios into rails-fixtures.json.
#
# Re-record (from the repository root, after editing test/rails/scenarios.ts):
#
#   npx tsc -b; node packages/router/test/rails/export-ruby.mjs | ruby packages/router/test/rails/record.rb
#
# (`npx tsc -b` may report errors in other files; the scenarios only need to be emitted to
# packages/router/dist/test/rails/scenarios.js.) Writes packages/router/test/rails/rails-fixtures.json.
# Optional: `ruby record.rb scenarios.json [out.json]` reads the exported JSON from a file instead.
#
# Per scenario the fixture holds the Ruby body (`ruby`, to detect stale fixtures) and either
# { error: "message", errorClass: "ArgumentError" } when Rails
# raised while drawing, or
#   { routes: [{ name, verb, path, handler, action, requirements, defaults }],
#     recognize: [{ verb, path, result: null | { handler, action, params } }],
#     generate: [{ args, result: string | null, error?: true, message?: string }] }
# - handler is the route's controller; requirements are the path segment requirements (Regexp sources),
#   minus the implicit glob `.+?` (Rails' own Route#requirements drops it too);
#   defaults exclude controller and action.
# - recognition follows what RouteSet#call / recognize_path do (normalize_path, then the Journey router,
#   first matching route) but does not need the controller classes to exist. params exclude
#   controller and action; values are strings.
# - generation calls the named `<name>_path` helper with the probe's arguments; a trailing JSON object
#   becomes a hash with symbol keys.
require 'json'
require 'action_dispatch'
require 'action_controller'

input = ARGV[0] ? File.read(ARGV[0]) : $stdin.read
out_path = ARGV[1] || File.join(__dir__, 'rails-fixtures.json')
scenarios = JSON.parse(input)

def regexp_source(v)
  v.is_a?(Regexp) ? v.source : v.to_s
end

def plain(v)
  case v
  when Symbol then v.to_s
  when Regexp then v.source
  when Hash then v.each_with_object({}) { |(k, x), h| h[k.to_s] = plain(x) }
  when Array then v.map { |x| plain(x) }
  else v
  end
end

def route_info(r)
  defaults = r.defaults.reject { |k, _| k == :controller || k == :action }
  reqs = r.path.requirements.reject { |k, v| k == :controller || k == :action || v == /.+?/ }
  {
    name: r.name,
    verb: r.verb,
    path: r.path.spec.to_s,
    handler: r.defaults[:controller],
    action: r.defaults[:action],
    requirements: reqs.each_with_object({}) { |(k, v), h| h[k.to_s] = regexp_source(v) },
    defaults: plain(defaults),
  }
end

def recognize(rs, verb, path)
  # PATH_INFO is set directly (not parsed as a URI by Rack) so odd probes (`%zz`, `//x`) reach the router.
  path_info, query = path.split('?', 2)
  env = Rack::MockRequest.env_for('/', method: verb)
  env['PATH_INFO'] = path_info.to_s
  env['QUERY_STRING'] = query.to_s
  req = ActionDispatch::Request.new(env)
  req.path_info = ActionDispatch::Journey::Router::Utils.normalize_path(req.path_info)
  found = nil
  rs.router.recognize(req) do |route, params|
    next if found
    next unless route.dispatcher? # (all scenario routes dispatch to handler#action)
    p2 = params.reject { |k, _| k == :controller || k == :action }
    found = {
      handler: params[:controller],
      action: params[:action],
      params: p2.each_with_object({}) { |(k, v), h| h[k.to_s] = v.is_a?(String) ? v.dup.force_encoding('UTF-8') : plain(v) },
    }
  end
  found
rescue => e
  { exception: "#{e.class}: #{e.message}" }
end

def symbolize(v)
  case v
  when Hash then v.each_with_object({}) { |(k, x), h| h[k.to_sym] = symbolize(x) }
  when Array then v.map { |x| symbolize(x) }
  else v
  end
end

def generate(helpers, probe)
  name, *args = probe
  args = args.map { |a| symbolize(a) }
  { args: probe, result: helpers.public_send("#{name}_path", *args) }
rescue NoMethodError => e
  { args: probe, result: nil, error: true, message: "NoMethodError: no helper #{name}_path" }
rescue => e
  { args: probe, result: nil, error: true, message: "#{e.class}: #{e.message.lines.first.to_s.strip}" }
end

fixtures = {}
scenarios.each do |s|
  rs = ActionDispatch::Routing::RouteSet.new
  body = s['ruby']
  begin
    rs.draw { instance_eval(body, "(#{s['name']})") }
  rescue ArgumentError, NameError, NoMethodError => e
    raise if e.is_a?(NoMethodError) && !e.message.include?('undefined method') # keep real bugs loud
    fixtures[s['name']] = { ruby: body, error: e.message, errorClass: e.class.name }
    next
  end
  helpers = Class.new { include rs.url_helpers }.new
  fixtures[s['name']] = {
    ruby: body,
    routes: rs.routes.map { |r| route_info(r) },
    recognize: s['recognize'].map { |verb, path| { verb: verb, path: path, result: recognize(rs, verb, path) } },
    generate: s['generate'].map { |probe| generate(helpers, probe) },
  }
end

File.write(out_path, JSON.pretty_generate(fixtures) + "\n")
counts = fixtures.values.each_with_object(Hash.new(0)) do |f, c|
  c[:scenarios] += 1
  c[:errors] += 1 if f[:error]
  c[:routes] += (f[:routes] || []).size
  c[:recognize] += (f[:recognize] || []).size
  c[:generate] += (f[:generate] || []).size
end
$stderr.puts "wrote #{out_path}: #{counts}"
