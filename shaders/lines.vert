#version 330 core
// Unlit overlay geometry (grid, arrows, cones, boxes): position and colour per vertex.
layout (location = 0) in vec3 position;
layout (location = 1) in vec4 color;
uniform mat4 view_projection;
out vec4 vertex_color;
void main ()
{
  vertex_color = color;
  gl_Position = view_projection * vec4 (position, 1.0);
}
