#version 330 core
// Shaded bodies: world-space positions and face normals, one colour per body. The section
// plane cuts them: what lies where dot (clip_plane, (x, 1)) < 0 is not drawn.
layout (location = 0) in vec3 position;
layout (location = 1) in vec3 normal;
layout (location = 2) in vec4 color;
uniform mat4 view_projection;
uniform vec4 clip_plane;
out vec3 world_normal;
out vec4 base_color;
void main ()
{
  world_normal = normal;
  base_color = color;
  gl_ClipDistance[0] = dot (clip_plane, vec4 (position, 1.0));
  gl_Position = view_projection * vec4 (position, 1.0);
}
