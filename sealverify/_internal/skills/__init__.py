"""Layer 2, skills: SEP-2640 Agent Skills, each skill's identity and a whole listing."""
