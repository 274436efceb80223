// Stands for the graph layer's header in the layering fixture.
#pragma once

#include "lowering/ir/upward.h"
