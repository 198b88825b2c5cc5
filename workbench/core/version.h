#pragma once

const char *cwb_version (void);
