#include "testing.hpp"
