#version 330 core
// Two-sided Lambert with a headlight-ish key light and an ambient term, enough to read shape.
in vec3 world_normal;
in vec4 base_color;
uniform vec3 light_direction;
out vec4 frag_color;
void main ()
{
  vec3 n = normalize (world_normal);
  float diffuse = abs (dot (n, normalize (light_direction)));
  frag_color = vec4 (base_color.rgb * (0.35 + 0.65 * diffuse), base_color.a);
}
