#version 330 core
// Shaded bodies: world-space positions and face normals, one colour per body.
layout (location = 0) in vec3 position;
layout (location = 1) in vec3 normal;
layout (location = 2) in vec4 color;
uniform mat4 view_projection;
out vec3 world_normal;
out vec4 base_color;
void main ()
{
  world_normal = normal;
  base_color = color;
  gl_Position = view_projection * vec4 (position, 1.0);
}
