#version 330 core
// Two-sided Lambert with a headlight-ish key light and an ambient term, enough to read shape.
// With a section plane, the inside of a cut body (its back faces, seen through the cut) is
// drawn dark and unlit, so the cut reads as a hollow.
in vec3 world_normal;
in vec4 base_color;
uniform vec3 light_direction;
uniform bool mark_inside;
out vec4 frag_color;
void main ()
{
  if (mark_inside && !gl_FrontFacing)
    {
      frag_color = vec4 (base_color.rgb * 0.3, base_color.a);
      return;
    }
  vec3 n = normalize (world_normal);
  float diffuse = abs (dot (n, normalize (light_direction)));
  frag_color = vec4 (base_color.rgb * (0.35 + 0.65 * diffuse), base_color.a);
}
