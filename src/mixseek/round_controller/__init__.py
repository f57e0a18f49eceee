"""mixseek.round_controller"""
